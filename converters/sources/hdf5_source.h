#pragma once
// Reads images from an existing HDF5 file, for `h5feed rechunk`: an h5feed file, or one made
// with h5py or any HDF5 program.
//
// Images: the dataset the loader would read (hdf5/image_dataset.h: the one named, else
// "images", else the only 4-D uint8 dataset, else the only 3-D one), uint8 NHWC, NCHW or
// (N, H, W) grayscale, contiguous or chunked with any filters HDF5 can decode (h5feed's zstd
// filter is registered in-process; others load from HDF5_PLUGIN_PATH). The layout is the
// dataset's "layout" attribute, else the root group's (h5feed files), else inferred: NCHW when
// dim 1 is 1, 3 or 4 and dim 3 is not. Read() writes NHWC whatever the source layout, and
// (N, H, W) as H x W x 1, as the loader delivers it.
// Labels: any integer dataset of N values ((N,) or (N, 1)), every value >= 0; without one every
// label is 0. Classes: the "classes" string dataset when there is one, else "0".."max label".
// Fields: the file's other datasets of a value per image (hdf5_fields.h), or those chosen.
// An h5feed file written without labels (`labelled` 0) gives samples without labels.
// Sample names: the "sources" string dataset when it holds N names (an h5feed file keeps
// them across a rechunk), else "<file name>#<row>".
//
// Reading rows in order decompresses each source chunk once: the dataset's chunk cache holds
// the chunks of two consecutive rows' worth (prefers_sequential_reads() is true for chunked
// sources). Random order decompresses a chunk once per row it holds.

#include <memory>
#include <string>

#include "sample_source.h"
#include "sources/hdf5_fields.h"

namespace h5feed::converters {

struct Hdf5SourceOptions {
  // The image dataset's path in the file. Empty: "images", else the only 4-D uint8 dataset,
  // else the only 3-D one.
  std::string images;
  // The labels dataset's path. Empty: "labels" when the file has one, else every label is 0.
  std::string labels;
  // The datasets carried as fields (hdf5_fields.h): nullopt every one that can be, empty none.
  Hdf5FieldChoice fields;
};

// Throws Error(kNotFound) when `path` or a named dataset does not exist, or there is no image
// dataset (the message lists the datasets found with their shapes and types); Error(kCorrupt)
// when `path` is not an HDF5 file ("X is not an HDF5 file ...") or is damaged, or a label is
// negative; Error(kUnsupported) when the images are not uint8 of rank 3 or 4, or a filter
// cannot be decoded here; Error(kInvalidArgument) when several datasets qualify and none was
// named, or the labels do not number N; and what Hdf5Fields::Open throws.
std::unique_ptr<SampleSource> OpenHdf5(const std::string& path, const Hdf5SourceOptions& options);

}  // namespace h5feed::converters
