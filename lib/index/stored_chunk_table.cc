// ReadCheckedChunkTable and TableRowMismatch (stored_chunk_table.h).

#include "index/stored_chunk_table.h"

#include <algorithm>
#include <string>
#include <vector>

#include "format/chunk_index_dataset.h"
#include "format/schema.h"
#include "h5feed/error.h"
#include "hdf5/direct_chunk.h"
#include "hdf5/error.h"
#include "io/resource_limits.h"
#include "make_error.h"

namespace h5feed::index {
namespace {

std::string Location(uint64_t address, uint64_t stored_bytes, uint32_t filter_mask) {
  return fmt::format("byte {}, {} bytes, filter mask {}", address, stored_bytes, filter_mask);
}

// docs/format.md, "The addresses describe the file as written": the first and the last chunk
// and others spread evenly between them must be where HDF5's own chunk index says.
void CompareWithHdf5(hid_t dataset, const StoredTable& table,
                     const std::vector<ChunkLocation>& rows, int entries, const std::string& path) {
  const int64_t count = static_cast<int64_t>(rows.size());
  if (count == 0 || entries <= 0) return;
  const int64_t checks = std::min<int64_t>(entries, count);
  for (int64_t j = 0; j < checks; ++j) {
    const int64_t c = checks == 1 ? 0 : j * (count - 1) / (checks - 1);
    const std::string mismatch =
        TableRowMismatch(dataset, table, c, rows[static_cast<size_t>(c)], path);
    if (mismatch.empty()) continue;
    throw MakeError(
        ErrorCode::kCorrupt,
        "the chunk table of {} in {} does not match the file: {}. The file was rewritten after "
        "conversion (h5repack, or {} copied with h5py), which moves chunks; run h5feed rechunk "
        "on it to rebuild the table",
        table.dataset, path, mismatch, table.dataset);
  }
}

}  // namespace

std::vector<ChunkLocation> ReadCheckedChunkTable(hid_t file, hid_t dataset,
                                                 const StoredTable& table, int entries,
                                                 const DatasetIndex& index) {
  const std::string& path = index.path;
  const std::vector<format::schema::ChunkRecord> records =
      format::ReadChunkIndex(file, table.chunks, table.table);
  if (static_cast<int64_t>(records.size()) != table.chunks) {
    throw MakeError(
        ErrorCode::kCorrupt,
        "the chunk table of {} in {} has {} rows for {} chunks: the file is damaged; convert it "
        "again",
        table.dataset, path, records.size(), table.chunks);
  }
  const uint64_t file_bytes = index.file_bytes;
  // A chunk is read into a buffer of its stored size: bound it by what the codecs can
  // produce, not only by the file (a 1 TB file must not make a chunk claim 500 GB).
  const uint64_t max_stored =
      io::limits::MaxStoredChunkBytes(static_cast<uint64_t>(table.chunk_bytes));
  std::vector<ChunkLocation> rows;
  rows.reserve(records.size());
  for (size_t c = 0; c < records.size(); ++c) {
    const format::schema::ChunkRecord& r = records[c];
    if (r.stored_bytes == 0 || r.address > file_bytes || r.stored_bytes > file_bytes - r.address) {
      throw MakeError(
          ErrorCode::kCorrupt,
          "chunk {} of {} in {} lies at {}, outside the file's {} bytes: the file is truncated or "
          "damaged; copy or convert it again",
          c, table.dataset, path, Location(r.address, r.stored_bytes, r.filter_mask), file_bytes);
    }
    if (r.stored_bytes > max_stored) {
      throw MakeError(
          ErrorCode::kCorrupt,
          "chunk {} of {} in {} claims {} stored bytes, more than any codec makes of its {} bytes "
          "(at most {}): the chunk table is damaged; convert the file again",
          c, table.dataset, path, r.stored_bytes, table.chunk_bytes, max_stored);
    }
    rows.push_back({r.address, r.stored_bytes, r.filter_mask, r.checksum});
  }
  CompareWithHdf5(dataset, table, rows, index.location.remote() ? std::min(entries, 1) : entries,
                  path);
  return rows;
}

std::string TableRowMismatch(hid_t dataset, const StoredTable& table, int64_t chunk,
                             const ChunkLocation& row, const std::string& path) {
  const uint64_t offset[1] = {static_cast<uint64_t>(chunk * table.extent)};
  hdf5::ChunkPlace place;
  if (!hdf5::LocateChunk(dataset, offset, place)) {
    throw hdf5::StackError(ErrorCode::kCorrupt,
                           fmt::format("locating chunk {} of {}", chunk, table.dataset), path);
  }
  if (place.stored && place.address == row.address && place.stored_bytes == row.stored_bytes &&
      place.filter_mask == row.filter_mask) {
    return {};
  }
  const std::string actual =
      place.stored ? "at " + Location(place.address, place.stored_bytes, place.filter_mask)
                   : "not stored at all";
  return fmt::format("chunk {} is at {} by the table but {} by HDF5", chunk,
                     Location(row.address, row.stored_bytes, row.filter_mask), actual);
}

}  // namespace h5feed::index
