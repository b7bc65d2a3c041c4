// The HDF5 filter plugin libh5feed_zstd.so: HDF5 dlopen()s every lib*.so on HDF5_PLUGIN_PATH
// (default /usr/local/hdf5/lib/plugin) when a dataset needs a filter it does not know, and asks
// each for its type and class. This one answers with the zstd filter 32015 of zstd_filter.cc.
//
// Usage: HDF5_PLUGIN_PATH=<dir holding libh5feed_zstd.so> h5dump -d /images train.h5

#include <H5PLextern.h>

#include "hdf5/zstd_filter.h"

extern "C" {

H5PL_type_t H5PLget_plugin_type(void) { return H5PL_TYPE_FILTER; }

const void* H5PLget_plugin_info(void) { return &h5feed::hdf5::ZstdFilterClass(); }

}  // extern "C"
