#pragma once
// Creation property lists that leave modification times out of HDF5 object headers.
//
// HDF5 stamps every group and dataset it writes with the second it was written (the object
// modification time message) unless told not to, so two conversions of the same input a
// second apart differ in bytes. Without the stamps a conversion is byte for byte a function of
// its input and options: checksums of whole files can be compared, and a file left under its
// temporary name by a kill before the rename is the very file the rename would have named.
// (h5py does the same with track_times=False.)

#include <hdf5.h>

#include "hdf5/handle.h"

namespace h5feed::hdf5 {

// For H5Fcreate: the root group without a time. Throws Error(kInternal) if HDF5 fails (it
// only can when out of memory).
PropertyList UntimedFileCreation();
// For H5Dcreate2: a dataset without a time; add chunking and filters to it as needed.
PropertyList UntimedDatasetCreation();
// For H5Gcreate2: a group without a time.
PropertyList UntimedGroupCreation();

// Creates group `name` in `location` without a time. Throws Error (kIo, or kNoSpace) "creating
// group NAME failed for FILE". Call under hdf5::Lock().
Group CreateUntimedGroup(hid_t location, const char* name);

}  // namespace h5feed::hdf5
