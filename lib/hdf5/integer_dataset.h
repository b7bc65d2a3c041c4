#pragma once
// Every value of an integer dataset as int64, whatever its stored integer type and byte order
// (HDF5 converts on the way): how labels are read, by the index, inspect and rechunk. The
// callers check the dataset's type and shape first (dataset_listing.h) and say what they
// require of it. Call under hdf5::Lock().

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace h5feed::hdf5 {

// Reads dataset `name` of `file` (named `path` in messages). Throws Error(kCorrupt) naming the
// dataset, the file and HDF5's reason when it cannot be opened or read (a value that does not
// fit int64 is a failed conversion, so unsigned 64-bit values of 2^63 or more fail too).
std::vector<int64_t> ReadIntegerDataset(hid_t file, const std::string& name,
                                        const std::string& path);

}  // namespace h5feed::hdf5
