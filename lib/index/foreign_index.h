#pragma once
// The index of an image dataset in an HDF5 file h5feed did not write (h5py, any HDF5 program):
// which dataset holds the images, its layout, and how ChunkReader will read it (ReadPath).
// There is no stored chunk table, and HDF5's chunk index is never walked (quadratic in
// 1.10.8): chunked datasets are read chunk by chunk through HDF5, one B-tree lookup each.
// Call under hdf5::Lock().

#include <hdf5.h>

#include "index/dataset_index.h"

namespace h5feed::index {

// Fills `index` (whose `path` is set) from `file`. Throws Error: kNotFound when there is no
// image dataset (the message lists every dataset with its type and shape) or a named dataset
// does not exist; kInvalidArgument when several datasets could be the images and none is
// named; kUnsupported for a wrong dtype or rank or a filter neither h5feed nor HDF5 decodes;
// kCorrupt for labels that are not N integers or contiguous data past the end of the file.
void ReadForeignIndex(hid_t file, const IndexOptions& options, DatasetIndex& index);

}  // namespace h5feed::index
