#pragma once
// The labels and class names of an HDF5 file's images, as `h5feed rechunk` reads them whatever
// holds the images (an array of pixels, hdf5_source.h, or of encoded files,
// encoded_hdf5_source.h).
//
// Labels: the dataset named, else "labels" when the file has one, else none (every label 0);
// integers of shape (N,) or (N, 1), each in [0, 2^20). Classes: the root "classes" string
// dataset when there is one (it must name every label), else "0".."max label".

#include <cstdint>
#include <string>
#include <vector>

#include "hdf5/dataset_listing.h"

namespace h5feed::converters {

struct Hdf5Labels {
  std::vector<int64_t> labels;  // empty: every label is 0
  std::vector<std::string> classes;
};

// Reads them from `file` (named `path` in messages; `datasets` is its ListDatasets) for
// `count` images. Call under hdf5::Lock(). Throws Error(kNotFound) for a named dataset that
// does not exist, kUnsupported for labels that are not integers of shape (N,) or (N, 1),
// kInvalidArgument when they do not number `count`, kCorrupt for a label out of range or one
// the classes dataset does not name.
Hdf5Labels ReadHdf5Labels(hid_t file, const std::vector<hdf5::DatasetEntry>& datasets,
                          const std::string& requested, int64_t count, const std::string& path);

}  // namespace h5feed::converters
