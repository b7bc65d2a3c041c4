#include "index/hdf5_block_reader.h"

#include <algorithm>
#include <vector>

#include "h5feed/error.h"
#include "hdf5/chunk_cache.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/direct_chunk.h"
#include "hdf5/error.h"
#include "hdf5/lock.h"
#include "hdf5/open_hdf5_file.h"
#include "hdf5/row_read.h"
#include "hdf5/zstd_filter.h"
#include "io/resource_limits.h"
#include "make_error.h"

namespace h5feed::index {
namespace {

// HDF5's chunk cache for hyperslab reads: enough for every chunk one block of rows touches,
// twice over, so a block that straddles a chunk boundary decodes each chunk once (the default
// 1 MiB cache decodes a larger chunk again on every partial read), within 256 MiB.
constexpr size_t kMinCacheBytes = size_t{1} << 20;
constexpr size_t kMaxCacheBytes = size_t{256} << 20;

// The chunk cache for `dataset` of `index` (0: HDF5's default), from its description.
size_t CacheBytes(const DatasetIndex& index, const hdf5::DatasetEntry& dataset) {
  const std::vector<int64_t>& chunk = dataset.storage.chunk;
  const size_t rank = dataset.dims.size();
  if (index.read_path != ReadPath::kHdf5Hyperslab || chunk.size() != rank || rank < 1 || rank > 4) {
    return 0;
  }
  size_t chunk_bytes = 1, chunks_per_block = 1;
  for (size_t d = 0; d < rank; ++d) {
    const size_t extent = static_cast<size_t>(std::max<int64_t>(chunk[d], 1));
    chunk_bytes *= extent;
    // Along dimension 0 a block of K <= chunk rows touches at most 2 chunks.
    chunks_per_block *= d == 0 ? 2 : (static_cast<size_t>(dataset.dims[d]) + extent - 1) / extent;
  }
  return std::clamp(chunks_per_block * chunk_bytes, kMinCacheBytes, kMaxCacheBytes);
}

}  // namespace

Hdf5BlockReader::Hdf5BlockReader(const DatasetIndex& index)
    : path_(index.path),
      dataset_name_(index.dataset),
      max_stored_bytes_(
          io::limits::MaxStoredChunkBytes(static_cast<uint64_t>(index.chunk_samples) *
                                          static_cast<uint64_t>(index.sample_bytes()))) {
  hdf5::RegisterZstdFilter();
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  // As the index was opened: without the lock when it fell back (or was asked to).
  file_ = std::move(hdf5::OpenHdf5File(index.location, index.file_locking).file);
  size_t cache_bytes = 0;
  if (index.read_path == ReadPath::kHdf5Hyperslab) {
    const hdf5::Dataset probe = hdf5::TryOpenDataset(file_.get(), dataset_name_);
    if (probe) cache_bytes = CacheBytes(index, hdf5::DescribeDataset(probe.get(), dataset_name_));
  }
  const hdf5::PropertyList cache = hdf5::ChunkCacheAccess(cache_bytes);
  dataset_ = hdf5::OpenDataset(file_.get(), dataset_name_, path_, cache.get());
  const std::vector<int64_t> dims = hdf5::DescribeDataset(dataset_.get(), dataset_name_).dims;
  if (dims.empty() || dims.size() > 4 || dims[0] != index.samples) {
    throw MakeError(ErrorCode::kCorrupt,
                    "{} in {} changed since the file was opened; open it again", dataset_name_,
                    path_);
  }
}

Hdf5BlockReader::~Hdf5BlockReader() {
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  dataset_.reset();
  file_.reset();
}

Hdf5BlockReader::RawChunk Hdf5BlockReader::ReadRawChunk(int64_t first_row,
                                                        ScratchBuffer& buffer) const {
  const uint64_t offset[1] = {static_cast<uint64_t>(first_row)};
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  hdf5::ChunkPlace place;
  if (!hdf5::MeasureChunk(dataset_.get(), offset, place)) {
    throw hdf5::StackError(hdf5::ReadFailureCode(), "looking up the stored chunk", path_);
  }
  RawChunk raw;
  if (!place.stored || place.stored_bytes == 0) return raw;  // never written: the fill value
  if (place.stored_bytes > max_stored_bytes_) {              // before the buffer grows to it
    throw MakeError(
        ErrorCode::kCorrupt,
        "HDF5's chunk index says the chunk holds {} stored bytes, more than any filter makes of it "
        "(at most {})",
        place.stored_bytes, max_stored_bytes_);
  }
  std::span<uint8_t> bytes = buffer.Get(static_cast<size_t>(place.stored_bytes));
  uint32_t mask = 0;
  if (!hdf5::ReadStoredChunk(dataset_.get(), offset, bytes, mask)) {
    throw hdf5::StackError(hdf5::ReadFailureCode(), "reading the stored chunk", path_);
  }
  raw.bytes = bytes;
  raw.filter_mask = mask;
  raw.stored = true;
  return raw;
}

void Hdf5BlockReader::ReadRows(int64_t first_row, int64_t rows, std::span<uint8_t> dest) const {
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  if (!hdf5::ReadRows(dataset_.get(), first_row, rows, dest)) {
    throw hdf5::StackError(hdf5::ReadFailureCode(), "reading the rows through HDF5", path_);
  }
}

}  // namespace h5feed::index
