#pragma once
// Reads images kept in HDF5 as encoded files, for `h5feed rechunk`: a 1-D dataset of
// variable-length bytes (h5py: h5py.vlen_dtype(np.uint8)), each element one image file (JPEG,
// PNG, WebP, or any format an image folder may hold), the way ImageNet is often kept in HDF5.
//
// Each element is decoded as an image folder's file is (image_file_reader.h: PIL-equal RGB,
// within the memory budget, images over max_pixels refused) and stored at its own size, its
// longer side capped at max_side: the source is own_size(), and the conversion writes a
// version 2 file. An element that does not decode is skipped and recorded as "images[i]" (the
// dataset's name and the element). Labels and classes are read as hdf5_source.h reads them
// (hdf5_labels.h), and so are the fields (hdf5_fields.h).
//
// Thread-safety: Read() may run on many threads; an element's bytes are read under
// hdf5::Lock() into memory leased from the budget (never waiting for memory under the lock),
// and decoded outside it.

#include <cstdint>
#include <memory>
#include <string>

#include "memory_budget.h"
#include "sample_source.h"
#include "sources/hdf5_source.h"
#include "sources/image_file_reader.h"
#include "sources/image_folder_source.h"

namespace h5feed::converters {

struct EncodedHdf5Options {
  // The images dataset's path in the file. Empty: "images" when it holds encoded images, else
  // the only 1-D dataset of variable-length bytes when the file has no array of pixels the
  // loader would read (hdf5/image_dataset.h).
  std::string images;
  // The labels dataset's path (hdf5_labels.h). Empty: "labels" when the file has one.
  std::string labels;
  // The datasets carried as fields (hdf5_fields.h): nullopt every one that can be, empty none.
  Hdf5FieldChoice fields;
  // The cap on a stored image's longer side (image::CappedSize); 0 = no cap, which reads every
  // element's header before converting, to size the chunks by the largest image.
  int max_side = kDefaultMaxSide;
  // Images with more pixels are refused as decompression bombs (recorded like broken ones).
  int64_t max_pixels = kDefaultMaxPixels;
  int threads = 0;  // for reading the headers with max_side 0; 0 = all cores
  // The memory decoding may use, shared with the conversion (ConvertOptions::memory); it must
  // outlive the source. Null: a budget of kDefaultMemoryLimit of the source's own.
  MemoryBudget* memory = nullptr;
};

// Whether `path` holds encoded images by the rule of EncodedHdf5Options::images (`images` is
// the dataset named, or empty). Throws as OpenHdf5 does for a file it cannot open, and
// Error(kInvalidArgument) when several datasets qualify and none is named.
bool HoldsEncodedImages(const std::string& path, const std::string& images);

// Throws Error(kNotFound) when `path` or a named dataset does not exist or holds no encoded
// images, Error(kInvalidArgument) for a bad option or labels that do not number the images,
// Error(kCorrupt) for a damaged file, and as ReadHdf5Labels and Hdf5Fields::Open throw.
std::unique_ptr<SampleSource> OpenEncodedHdf5(const std::string& path,
                                              const EncodedHdf5Options& options);

// Whether `path` is an h5feed file of images at their own size (format version 2, layout
// "flat"). Throws as OpenHdf5 does for a file it cannot open.
bool HoldsOwnSizeImages(const std::string& path);

// What `h5feed rechunk` reads: an h5feed file of images at their own size through
// OpenOwnSizeFile (its images, labels and fields as stored; Error(kInvalidArgument) when
// `options.fields` chooses some); the
// encoded images of `path` when it holds them (HoldsEncodedImages); else its array of pixels
// (OpenHdf5, which ignores max_side, max_pixels and memory). The last two carry the file's
// fields as `options.fields` chooses.
std::unique_ptr<SampleSource> OpenRechunkSource(const std::string& path,
                                                const EncodedHdf5Options& options);

}  // namespace h5feed::converters
