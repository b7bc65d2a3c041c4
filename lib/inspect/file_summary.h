#pragma once
// What an HDF5 file holds, as `h5feed inspect` shows it: for an h5feed file its format version,
// image shape and layout, chunking, compression ratio, classes with their counts and the
// skipped sources (for a file of images at their own size, version 2, also their encodings,
// sizes, aspect ratios and chunk occupancy: own_size_summary.h); for any other HDF5 file
// (h5py-made, NCHW or NHWC, any filters) what was found there and whether `h5feed rechunk` can
// convert it.
//
// Summarizing reads only metadata, the labels, the small string datasets and an own-size file's
// per-image table: never the pixels
// and never the chunk index to find chunks (chunk counts come from the shapes: walking the index
// is quadratic in HDF5 1.10.8, docs/format.md, "/chunk_index"). Only the storage size of each
// dataset asks HDF5 to add up its chunks; for a remote file (a round trip per block of that
// index) a chunked dataset's storage size is left unknown, save an h5feed file's images, whose
// chunk table gives it in one read.
//
// Which dataset holds the images is hdf5::ChooseImageDataset's rule (hdf5/image_dataset.h),
// the loader's, rechunk's and verify's too: what inspect reports as images is what they read.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "h5feed/remote_options.h"
#include "hdf5/attribute_text.h"
#include "inspect/label_order.h"
#include "inspect/own_size_summary.h"

namespace h5feed::inspect {

struct DatasetSummary {
  std::string name;            // path from the root group, without a leading '/'
  std::vector<int64_t> shape;  // empty for a scalar
  std::string dtype;           // "uint8", "int64", "float32", "string", "compound", ...
  bool is_uint8 = false;
  bool is_integer = false;
  bool is_string = false;
  std::vector<int64_t> chunk_shape;  // empty: contiguous or compact storage
  std::vector<std::string> filters;  // in pipeline order: "zstd:3", "gzip:6", "shuffle", "lzf"
  uint64_t stored_bytes = 0;         // H5Dget_storage_size; 0 when unknown (remote, chunked)
  uint64_t logical_bytes = 0;        // elements * element size; 0 for variable-length types
  double ratio = 0;                  // logical / stored; 0 when either is unknown
};

struct ClassCount {
  std::string name;
  int64_t count = 0;
};

// An attribute of the root group, its value rendered as text (hdf5/attribute_text.h).
using AttributeText = hdf5::AttributeText;

struct SkippedEntry {
  std::string source;
  std::string reason;
};

struct FileSummary {
  std::string path;
  uint64_t file_bytes = 0;
  bool is_h5feed = false;                 // has the h5feed format attributes
  int32_t format_version = 0;             // 0 when not an h5feed file
  std::vector<DatasetSummary> datasets;   // every dataset, in name order
  std::vector<AttributeText> attributes;  // of the root group

  // The image dataset; has_images is false when the file has none h5feed can use.
  bool has_images = false;
  std::string images;  // its name
  // "NHWC" or "NCHW"; "NHW" for grayscale (N, H, W), read as H x W x 1 (channels 1); "flat"
  // for images at their own size (h5feed format version 2, own_size below).
  std::string layout;
  bool layout_guessed = false;  // 4-D without a layout attribute: inferred from the shape
  // Of every image; "flat": the largest height, width and channels of any image.
  int64_t num_images = 0, height = 0, width = 0, channels = 0;
  int64_t chunk_images = 0;      // images per chunk ("flat": the most any holds); 0: not chunked
  int64_t chunk_count = 0;       // chunks in the dataset's chunk grid
  std::string compression;       // the filters joined with '+', or "none"
  double compression_ratio = 0;  // logical bytes / storage size; 0 when nothing is stored
  // Layout "flat" only: encodings, chunk occupancy, image sizes, bytes against the pixels'.
  std::optional<OwnSizeSummary> own_size;

  std::string labels;               // the labels dataset; empty when there is none
  std::vector<ClassCount> classes;  // label i names classes[i]; counts from the labels
  // Whether the stored order holds the labels in runs (class-sorted); none without labels or
  // with fewer than two distinct ones.
  std::optional<LabelOrder> label_order;
  bool has_skipped = false;  // the file records skipped sources (h5feed files do)
  std::vector<SkippedEntry> skipped;
  // What a person should know: a foreign file, a guessed layout, why there are no images.
  std::vector<std::string> notes;
};

// Summarizes the file at `path` (a local path or a remote URL, read with `remote`). Throws
// Error(kNotFound) when it does not exist, Error(kCorrupt) when it is not an HDF5 file or is
// truncated or damaged, Error(kIo) when it cannot be read.
FileSummary SummarizeFile(const std::string& path, const RemoteOptions& remote = {});

// The dataset of `summary` named `name` (without a leading '/'), or nullptr.
const DatasetSummary* FindDataset(const FileSummary& summary, std::string_view name);

}  // namespace h5feed::inspect
