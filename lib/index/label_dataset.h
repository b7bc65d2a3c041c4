#pragma once
// The labels and class names that go with an image dataset. Call under hdf5::Lock().

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace h5feed::index {

// Reads dataset `name` of `file` as `count` labels: any integer type and byte order (HDF5
// converts to int64), shape (N,) or (N, 1). Throws Error(kNotFound) when it does not exist,
// kCorrupt naming the dataset and file when it is not integers or holds another number of
// labels than there are images.
std::vector<int64_t> ReadLabels(hid_t file, const std::string& name, int64_t count,
                                const std::string& path);

// The strings of dataset `name` when it exists and is a 1-D string dataset; empty otherwise
// (foreign files may hold anything under that name). Throws Error(kCorrupt) when it is a
// string dataset HDF5 cannot read.
std::vector<std::string> ReadClassesIfAny(hid_t file, const std::string& name,
                                          const std::string& path);

}  // namespace h5feed::index
