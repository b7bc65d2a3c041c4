#pragma once
// Which dataset rows each chunk of images holds: chunk c holds rows [first_row(c),
// first_row(c + 1)). In a file of images at one size every chunk holds K rows (the last one
// fewer); in a file of images at their own size a chunk holds as many whole images as fit its
// bytes, so the count varies from chunk to chunk (docs/format.md). Samplers, the access plan,
// the cache and the gatherer see chunks only through this, so both kinds read alike.
//
// A value type: copies share one immutable table, so they are cheap and safe to read from
// many threads at once.

#include <cstdint>
#include <memory>
#include <vector>

namespace h5feed {

class ChunkRows {
 public:
  ChunkRows() = default;
  // K rows per chunk, the last one holding the rest. Throws Error(kInvalidArgument) for
  // samples < 0 or rows_per_chunk < 1.
  ChunkRows(int64_t samples, int64_t rows_per_chunk);
  // Chunk c holds rows [first_rows[c], first_rows[c + 1]): chunks + 1 entries, the first 0,
  // the last the number of rows, strictly increasing (no chunk is empty). Throws
  // Error(kInvalidArgument) otherwise.
  explicit ChunkRows(std::vector<int64_t> first_rows);

  int64_t samples() const { return samples_; }
  int64_t chunks() const { return chunks_; }
  // Whether every chunk but the last holds max_rows() rows.
  bool uniform() const { return table_ == nullptr; }
  // The most rows a chunk holds: K for uniform chunks.
  int64_t max_rows() const { return max_rows_; }
  double mean_rows() const { return chunks_ == 0 ? 0.0 : double(samples_) / double(chunks_); }

  // For 0 <= chunk <= chunks(): first_row(chunks()) is samples().
  int64_t first_row(int64_t chunk) const {
    if (table_) return table_->first_rows[static_cast<size_t>(chunk)];
    const int64_t first = chunk * max_rows_;
    return first < samples_ ? first : samples_;
  }
  int64_t rows_in(int64_t chunk) const { return first_row(chunk + 1) - first_row(chunk); }
  // The chunk holding `row` (0 <= row < samples()), in O(1): the access plan asks it for
  // every row of every epoch.
  int64_t chunk_of(int64_t row) const {
    return table_ ? table_->chunk_of_row[static_cast<size_t>(row)] : row / max_rows_;
  }

 private:
  struct Table {
    std::vector<int64_t> first_rows;
    std::vector<int32_t> chunk_of_row;  // 4 bytes a row: 5 MiB for ImageNet's 1.28M images
  };

  int64_t samples_ = 0;
  int64_t chunks_ = 0;
  int64_t max_rows_ = 0;
  std::shared_ptr<const Table> table_;  // null: uniform
};

}  // namespace h5feed
