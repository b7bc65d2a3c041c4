#include "index/hdf5_block_reader.h"

#include <algorithm>
#include <vector>

#include "h5feed/error.h"
#include "hdf5/error.h"
#include "hdf5/lock.h"
#include "hdf5/open_hdf5_file.h"
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
// Prime, and far above the chunks the cache holds: slot = linear chunk index mod nslots, so
// neighbouring chunks never collide (H5Pset_chunk_cache's advice: about 100 times as many).
constexpr size_t kCacheSlots = 10007;

// A failure HDF5 traced to the operating system (an errno in its stack) is I/O; anything
// else (a bad B-tree node, a filter that failed) is damaged data.
ErrorCode CodeOfStack() {
  return hdf5::ErrorStackErrno() != 0 ? ErrorCode::kIo : ErrorCode::kCorrupt;
}

hdf5::PropertyList CacheFor(const DatasetIndex& index, hid_t file) {
  hdf5::PropertyList access(H5Pcreate(H5P_DATASET_ACCESS));
  if (index.read_path != ReadPath::kHdf5Hyperslab || !access) return access;
  hdf5::Dataset probe(H5Dopen2(file, index.dataset.c_str(), H5P_DEFAULT));
  hdf5::PropertyList create(probe ? H5Dget_create_plist(probe.get()) : H5I_INVALID_HID);
  if (!create || H5Pget_layout(create.get()) != H5D_CHUNKED) return access;
  hdf5::Dataspace space(H5Dget_space(probe.get()));
  hsize_t dims[4] = {}, chunk[4] = {};
  const int rank = space ? H5Sget_simple_extent_dims(space.get(), dims, nullptr) : -1;
  if (rank < 1 || rank > 4 || H5Pget_chunk(create.get(), rank, chunk) != rank) return access;
  size_t chunk_bytes = 1, chunks_per_block = 1;
  for (int d = 0; d < rank; ++d) {
    const size_t extent = std::max<size_t>(chunk[d], 1);
    chunk_bytes *= extent;
    // Along dimension 0 a block of K <= chunk rows touches at most 2 chunks.
    chunks_per_block *= d == 0 ? 2 : (dims[d] + extent - 1) / extent;
  }
  const size_t bytes = std::clamp(chunks_per_block * chunk_bytes, kMinCacheBytes, kMaxCacheBytes);
  H5Pset_chunk_cache(access.get(), kCacheSlots, bytes, 0.75);
  return access;
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
  hdf5::PropertyList cache = CacheFor(index, file_.get());
  dataset_ = hdf5::Dataset(H5Dopen2(file_.get(), dataset_name_.c_str(), cache.get()));
  if (!dataset_) throw hdf5::StackError(ErrorCode::kCorrupt, "opening " + dataset_name_, path_);
  hdf5::Dataspace space(H5Dget_space(dataset_.get()));
  rank_ = space ? H5Sget_simple_extent_ndims(space.get()) : -1;
  if (rank_ < 1 || rank_ > 4 || H5Sget_simple_extent_dims(space.get(), dims_, nullptr) != rank_ ||
      static_cast<int64_t>(dims_[0]) != index.samples) {
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
  hsize_t offset[4] = {static_cast<hsize_t>(first_row), 0, 0, 0};
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  // H5Dget_chunk_storage_size would do, but fails outright for a chunk never written (1.10.8:
  // "chunk storage is not allocated"); this lookup reports such a chunk as HADDR_UNDEF.
  unsigned mask_before = 0;
  haddr_t address = HADDR_UNDEF;
  hsize_t size = 0;
  if (H5Dget_chunk_info_by_coord(dataset_.get(), offset, &mask_before, &address, &size) < 0) {
    throw hdf5::StackError(CodeOfStack(), "looking up the stored chunk", path_);
  }
  RawChunk raw;
  if (address == HADDR_UNDEF || size == 0) return raw;  // never written: the fill value
  if (size > max_stored_bytes_) {                       // before the buffer grows to it
    throw MakeError(
        ErrorCode::kCorrupt,
        "HDF5's chunk index says the chunk holds {} stored bytes, more than any filter makes of it "
        "(at most {})",
        size, max_stored_bytes_);
  }
  std::span<uint8_t> bytes = buffer.Get(static_cast<size_t>(size));
  uint32_t mask = 0;
  if (H5Dread_chunk(dataset_.get(), H5P_DEFAULT, offset, &mask, bytes.data()) < 0) {
    throw hdf5::StackError(CodeOfStack(), "reading the stored chunk", path_);
  }
  raw.bytes = bytes;
  raw.filter_mask = mask;
  raw.stored = true;
  return raw;
}

void Hdf5BlockReader::ReadRows(int64_t first_row, int64_t rows, std::span<uint8_t> dest) const {
  hsize_t start[4] = {static_cast<hsize_t>(first_row), 0, 0, 0};
  hsize_t count[4] = {static_cast<hsize_t>(rows), dims_[1], dims_[2], dims_[3]};
  const hsize_t memory_dims[1] = {dest.size()};
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  hdf5::Dataspace file_space(H5Dget_space(dataset_.get()));
  hdf5::Dataspace memory_space(H5Screate_simple(1, memory_dims, nullptr));
  const bool ok =
      file_space && memory_space &&
      H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) >= 0 &&
      H5Dread(dataset_.get(), H5T_NATIVE_UINT8, memory_space.get(), file_space.get(), H5P_DEFAULT,
              dest.data()) >= 0;
  if (!ok) throw hdf5::StackError(CodeOfStack(), "reading the rows through HDF5", path_);
}

}  // namespace h5feed::index
