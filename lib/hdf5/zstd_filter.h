#pragma once
// The zstd HDF5 filter, registered id 32015: the same filter as hdf5plugin's H5Z-ZSTD (and
// aparamon's HDF5Plugin-Zstandard it derives from). cd_values[0] is the compression level (an
// int stored in an unsigned; zstd's default 3 when absent, clamped to zstd's range); each
// chunk is one zstd frame with its content size recorded. Files written by either
// implementation are read by the other.
//
// Two ways in: RegisterZstdFilter() registers the class in this process (h5feed's own
// reads and writes), and libh5feed_zstd.so (zstd_plugin.cc) hands the same class to any HDF5
// program that finds it on HDF5_PLUGIN_PATH.

#include <hdf5.h>

namespace h5feed::hdf5 {

// The id in HDF5's filter registry (equal to schema::kZstdFilterId; hdf5 may not include
// format/, and the plugin carries no schema.h).
inline constexpr H5Z_filter_t kZstdFilterId = 32015;

// The filter class: encoder and decoder. The filter function never throws; it returns 0 on
// failure as HDF5 requires (HDF5 then reports "filter returned failure" on read, or stores the
// chunk unfiltered with its filter-mask bit set when the filter is optional).
const H5Z_class2_t& ZstdFilterClass();

// Registers ZstdFilterClass() with HDF5 in this process. Thread-safe and idempotent: the first
// call registers, later calls return at once. It need not hold hdf5::Lock(): H5Zregister is a
// single C API call, serialised by HDF5's own global lock, and changes no state another
// thread's sequence of calls depends on. Call it before
// creating or reading a dataset with the filter. Throws Error(kInternal) when HDF5 refuses.
void RegisterZstdFilter();

}  // namespace h5feed::hdf5
