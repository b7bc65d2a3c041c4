#pragma once
// Where each stored row of a file's images lies: which chunk holds it (ChunkRows), where its
// bytes start in that decoded chunk, how many there are, its shape and its encoding. A file of
// images at one size is the case without a table: chunk c holds K rows of H x W x C raw bytes,
// row r at (r - first_row(c)) x H x W x C. A file of images at their own size carries a table,
// one entry per row (docs/format.md, "Images at their own size"). The reader, the verifier and
// the converters ask this for a row and never which layout the file has.
//
// A value type: copies share one immutable table, so they are cheap and safe to read from many
// threads at once.

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "chunk_rows.h"
#include "h5feed/image_encoding.h"
#include "h5feed/image_shape.h"

namespace h5feed {

struct StoredRow {
  uint64_t offset = 0;  // its first byte in its decoded chunk
  uint64_t bytes = 0;   // how many bytes it is stored in
  ImageShape shape;
  ImageEncoding encoding = ImageEncoding::kRaw;
};

class RowLocator {
 public:
  // How many encodings a file may count rows of (ImageEncoding values 0 .. kEncodings - 1).
  static constexpr int kEncodings = 2;

  RowLocator() = default;
  // `samples` raw rows of `shape`, K = rows_per_chunk to a chunk, the last one holding the rest.
  // Throws as ChunkRows does.
  RowLocator(int64_t samples, int64_t rows_per_chunk, const ImageShape& shape);
  // One entry per row (offsets within their chunk), the chunks holding the rows `chunks` says,
  // each `chunk_bytes` decoded. The caller has checked the table (index/own_size_index.h).
  RowLocator(std::vector<StoredRow> table, ChunkRows chunks, int64_t chunk_bytes);

  const ChunkRows& chunks() const { return chunks_; }
  int64_t samples() const { return chunks_.samples(); }
  // Bytes of one decoded chunk: K x H x W x C, or the table's chunk size.
  int64_t chunk_bytes() const { return chunk_bytes_; }
  // The largest height, width and channels of any row: the one shape when there is no table.
  const ImageShape& largest() const { return largest_; }
  // Whether every row is raw pixels of largest(), K to a chunk: its rows can be copied out of
  // their chunks as they lie.
  bool uniform() const { return table_ == nullptr; }

  // Row `row` (0 <= row < samples()).
  StoredRow at(int64_t row) const {
    if (table_) return (*table_)[static_cast<size_t>(row)];
    const auto bytes = static_cast<uint64_t>(largest_.bytes());
    const int64_t place = row - chunks_.first_row(chunks_.chunk_of(row));
    return {static_cast<uint64_t>(place) * bytes, bytes, largest_, ImageEncoding::kRaw};
  }

  // How many rows are stored in `encoding`.
  int64_t count(ImageEncoding encoding) const {
    const auto e = static_cast<size_t>(encoding);
    return e < counts_.size() ? counts_[e] : 0;
  }

 private:
  ChunkRows chunks_;
  int64_t chunk_bytes_ = 0;
  ImageShape largest_;
  std::array<int64_t, kEncodings> counts_ = {};
  std::shared_ptr<const std::vector<StoredRow>> table_;  // null: no table
};

}  // namespace h5feed
