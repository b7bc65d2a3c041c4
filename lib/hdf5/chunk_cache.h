#pragma once
// HDF5's chunk cache for a dataset that h5feed reads through HDF5 (row_read.h). The default,
// 1 MiB in 521 slots, decompresses a filtered chunk larger than itself again on every partial
// read; readers size it to hold the chunks one read touches.

#include <cstddef>

#include "hdf5/handle.h"

namespace h5feed::hdf5 {

// A dataset access list (for OpenDataset) whose chunk cache holds `bytes`; 0 keeps HDF5's
// default cache. Slots: 10007, a prime far above the number of chunks the cache holds, so that
// neighbouring chunks never share one (slot = linear chunk index mod slots; H5Pset_chunk_cache
// advises about 100 times as many slots as chunks); w0 0.75, HDF5's default. Throws
// Error(kInternal) when HDF5 cannot make the list (out of memory).
PropertyList ChunkCacheAccess(size_t bytes);

}  // namespace h5feed::hdf5
