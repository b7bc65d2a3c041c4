#pragma once
// Which dataset of a file holds the images, and how they are laid out: the one rule that the
// loader's index, `h5feed inspect`, `h5feed rechunk` and `h5feed verify` share, so that a file
// one of them reads is a file all of them read alike.
//
// The images are, in this order: the dataset the caller names; else the one named "images";
// else the only uint8 dataset of 4 dimensions; else the only uint8 dataset of 3. They must be
// uint8, (N, H, W, C) or (N, C, H, W), or (N, H, W) for grayscale, which is read as
// (N, H, W, 1): its bytes are those of NHWC with one channel. A 4-D dataset's layout is its
// own "layout" attribute, else the root group's (where h5feed writes it), else inferred from
// the shape: NCHW when dimension 1 is 1, 3 or 4 and dimension 3 is not. Reads metadata only.
// Call under hdf5::Lock().

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "h5feed/error.h"
#include "h5feed/image_shape.h"
#include "h5feed/stored_layout.h"
#include "hdf5/dataset_listing.h"

namespace h5feed::hdf5 {

struct ImageDataset {
  DatasetEntry dataset;  // name, dims, chunk shape, filters
  // kNHWC, kNCHW or kNHW: kFlat is an own-size file's, whose images are no such dataset.
  StoredLayout layout = StoredLayout::kNHWC;
  bool layout_inferred = false;  // 4-D without a layout attribute h5feed understood
  int64_t count = 0;             // N
  ImageShape shape;              // one image, H x W x C whatever the layout (C = 1 for kNHW)
};

struct ImageDatasetChoice {
  // The images; empty when the file has none h5feed can use.
  std::optional<ImageDataset> images;
  // Without images, why (the error Use() throws). With images, a layout attribute that is
  // neither NHWC nor NCHW: the layout was inferred from the shape instead, which `h5feed
  // inspect` reports while Use() refuses it.
  std::optional<Error> problem;

  // The images. Throws `problem` whenever there is one: kNotFound (no image dataset, or the
  // named one does not exist: the message lists every dataset with its type and shape),
  // kInvalidArgument (several candidates and none named images), kUnsupported (a named
  // dataset that is not uint8 of rank 3 or 4, empty images, a layout attribute not
  // understood), kCorrupt (dimensions no real dataset has).
  const ImageDataset& Use() const;
};

// Applies the rule to `datasets` (ListDatasets of `file`, named `path` in messages);
// `requested` is the dataset the caller names ("" for none; "x" or "/x").
ImageDatasetChoice ChooseImageDataset(hid_t file, const std::vector<DatasetEntry>& datasets,
                                      std::string_view requested, const std::string& path);

// The layout of a 4-D image dataset of shape `dims`: `declared` (a layout attribute, "NHWC"
// or "NCHW" in any case; empty when there is none) when given, else inferred from the shape.
// Throws Error(kUnsupported) for another declared layout.
StoredLayout DetectLayout(std::span<const int64_t> dims, std::string_view declared);

}  // namespace h5feed::hdf5
