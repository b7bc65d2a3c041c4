#pragma once
// Whole rows of a dataset read through HDF5 (H5Dread of a hyperslab), HDF5 undoing the filters:
// for the datasets whose chunks h5feed cannot read itself (chunks that cut rows, filters only
// HDF5 knows, compact or external storage), and for the converters' HDF5 source. Call under
// hdf5::Lock() with errors silenced.

#include <hdf5.h>

#include <cstdint>
#include <span>

namespace h5feed::hdf5 {

// Rows [first_row, first_row + rows) of `dataset`, every element of each along the other
// dimensions, converted by HDF5 to uint8 and written to `dest` in storage order; `dest` holds
// exactly those rows. False when HDF5 fails (a read, a filter), leaving its error stack for the
// caller's StackError.
bool ReadRows(hid_t dataset, int64_t first_row, int64_t rows, std::span<uint8_t> dest);

}  // namespace h5feed::hdf5
