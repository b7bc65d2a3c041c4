#pragma once
// Reads images from a NumPy .npy array and, optionally, labels from a second one.
//
// Images: a C-ordered uint8 array of shape (N, H, W, C) with C in 1..4, or (N, H, W). The
// data keeps its own channels: (N, H, W, C) is stored with C channels and (N, H, W) with one;
// nothing is converted to RGB. The file is never loaded whole: Read(i) reads row i
// (input_file.h).
// Labels: a 1-D array of N integers (or (N, 1)), of any integer dtype and byte order, every
// value >= 0. They are read once at open (8 bytes per sample). classes() is "0".."max label".
// Without a labels file every label is 0 and the one class is "0".
//
// Fields: one more array per field, row i image i's value (npy_fields.h).
//
// Samples are named "<images file name>#<row>", e.g. "images.npy#123".

#include <memory>
#include <string>

#include "sample_source.h"
#include "sources/npy_fields.h"

namespace h5feed::converters {

// Throws Error(kNotFound) for a missing file, Error(kUnsupported) for a dtype, rank, channel
// count or Fortran order it does not take (saying how to convert the array), Error(kCorrupt)
// for a file shorter than its header says or a negative label, Error(kInvalidArgument) when
// the labels do not number N; and what NpyFields throws for `fields`.
std::unique_ptr<SampleSource> OpenNpy(const std::string& images_path,
                                      const std::string& labels_path,
                                      const std::vector<NpyFieldFile>& fields = {});

}  // namespace h5feed::converters
