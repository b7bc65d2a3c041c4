#pragma once
// How a file's image dataset is shaped on disk, as `h5feed inspect` reports it
// (FileSummary::layout) and the reader finds it (the image dataset rule, docs/hdf5.md).
//
// Not the output layout (Layout, output_options.h), which is what a trainer asks its
// normalized images in: a file holds shapes no batch is delivered in. A foreign dataset may be
// 3-D grayscale (N, H, W), and a file of images at their own size holds one flat byte array.
// Both are read as H x W x C samples (C = 1 for NHW), so once read every stored layout is
// NHWC or NCHW.

#include <string_view>

namespace h5feed {

enum class StoredLayout {
  kNHWC,  // (N, H, W, C): what h5feed writes for images of one size
  kNCHW,  // (N, C, H, W): a foreign dataset, planar
  kNHW,   // (N, H, W): a foreign grayscale dataset, read as NHWC with C = 1
  kFlat,  // h5feed format version 2: each image at its own size, packed into byte chunks
};

// "NHWC", "NCHW", "NHW", "flat" (the words of the files' layout attribute, where one is).
std::string_view ToString(StoredLayout layout) noexcept;

}  // namespace h5feed
