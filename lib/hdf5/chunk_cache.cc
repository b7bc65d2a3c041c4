// ChunkCacheAccess (chunk_cache.h).

#include "hdf5/chunk_cache.h"

#include "h5feed/error.h"
#include "hdf5/error.h"
#include "make_error.h"

namespace h5feed::hdf5 {
namespace {

constexpr size_t kCacheSlots = 10007;
constexpr double kPreemptFullyRead = 0.75;

}  // namespace

PropertyList ChunkCacheAccess(size_t bytes) {
  PropertyList access(H5Pcreate(H5P_DATASET_ACCESS));
  if (!access) {
    throw MakeError(ErrorCode::kInternal, "HDF5 failed making a dataset access list: {}",
                    ErrorStackText());
  }
  if (bytes > 0) H5Pset_chunk_cache(access.get(), kCacheSlots, bytes, kPreemptFullyRead);
  return access;
}

}  // namespace h5feed::hdf5
