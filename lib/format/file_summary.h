#pragma once
// What an HDF5 file holds, as `h5feed inspect` shows it: for an h5feed file its format version,
// image shape and layout, chunking, compression ratio, classes with their counts and the
// skipped sources; for any other HDF5 file (h5py-made, NCHW or NHWC, any filters) what was
// found there and whether `h5feed rechunk` can convert it.
//
// Summarizing reads only metadata, the labels and the small string datasets: never the pixels
// and never the chunk index (chunk counts come from the shapes; design.md: walking the index is
// quadratic in HDF5 1.10.8).
//
// ListDatasets, FindImageDataset and DetectLayout are shared with the HDF5 conversion source,
// so inspect and rechunk agree on which dataset holds the images and how it is laid out.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/hdf5_handle.h"
#include "h5feed/remote_options.h"

namespace h5feed {

struct DatasetSummary {
  std::string name;            // path from the root group, without a leading '/'
  std::vector<int64_t> shape;  // empty for a scalar
  std::string dtype;           // "uint8", "int64", "float32", "string", "compound", ...
  bool is_uint8 = false;
  bool is_integer = false;
  bool is_string = false;
  std::vector<int64_t> chunk_shape;  // empty: contiguous or compact storage
  std::vector<std::string> filters;  // in pipeline order: "zstd:3", "gzip:6", "shuffle", "lzf"
  uint64_t stored_bytes = 0;         // H5Dget_storage_size
  uint64_t logical_bytes = 0;        // elements * element size; 0 for variable-length types
  double ratio = 0;                  // logical / stored; 0 when either is unknown

  std::string ShapeText() const;  // "(50000, 32, 32, 3)"
  std::string Describe() const;   // "images uint8 (50000, 32, 32, 3) chunks (...) zstd:3"
};

struct ClassCount {
  std::string name;
  int64_t count = 0;
};

struct AttributeText {
  std::string name;
  std::string value;  // rendered as text: strings as is, numbers in decimal, arrays "[1, 2]"
};

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
  std::string images;           // its name
  std::string layout;           // "NHWC" or "NCHW"
  bool layout_guessed = false;  // no layout attribute: inferred from the shape
  int64_t num_images = 0, height = 0, width = 0, channels = 0;
  int64_t chunk_images = 0;      // images per chunk; 0 when not chunked
  int64_t chunk_count = 0;       // chunks in the dataset's chunk grid
  std::string compression;       // the filters joined with '+', or "none"
  double compression_ratio = 0;  // logical bytes / storage size; 0 when nothing is stored

  std::string labels;               // the labels dataset; empty when there is none
  std::vector<ClassCount> classes;  // label i names classes[i]; counts from the labels
  bool has_skipped = false;         // the file records skipped sources (h5feed files do)
  std::vector<SkippedEntry> skipped;
  std::vector<std::string> notes;  // what a person should know: foreign file, guesses, ...
};

// Summarizes the file at `path` (a local path or a remote URL, read with `remote`). Throws
// Error(kNotFound) when it does not exist, Error(kCorrupt) when it is not an HDF5 file or is
// truncated or damaged, Error(kIo) when it cannot be read.
FileSummary SummarizeFile(const std::string& path, const RemoteOptions& remote = {});

// A JSON object with every field of the summary (for scripts: `h5feed inspect --json`).
std::string ToJson(const FileSummary& summary);
// A few aligned lines for a person; long class and skipped lists are cut (ToJson has all).
std::string ToText(const FileSummary& summary);

// Every dataset reachable from the root of `file`, in name order. The caller holds
// hdf5::Lock(). Throws Error(kCorrupt) when the file's metadata cannot be read.
// `chunked_storage` false leaves stored_bytes 0 for chunked datasets (reading it walks their
// whole chunk index: for a remote file, a round trip per block of it).
std::vector<DatasetSummary> ListDatasets(hid_t file, bool chunked_storage = true);

// The dataset h5feed takes as images: "images" when it is a 4-D uint8 dataset, else the only
// 4-D uint8 dataset. nullptr when there is none, or several and none is named "images".
const DatasetSummary* FindImageDataset(const std::vector<DatasetSummary>& datasets);

// "NCHW" or "NHWC" for a 4-D image dataset. `declared` is a layout attribute ("NHWC", "NCHW",
// any case; empty when absent) and wins when present; otherwise the shape decides: NCHW when
// dim 1 is 1, 3 or 4 and dim 3 is not. Throws Error(kUnsupported) for another declared layout.
std::string DetectLayout(std::span<const int64_t> shape, std::string_view declared);

// The layout attribute that applies to image dataset `images` of `file`: the dataset's own
// "layout" attribute, else the root group's (where h5feed writes it); empty when neither
// exists. The caller holds hdf5::Lock().
std::string DeclaredLayout(hid_t file, const std::string& images);

// The value of attribute `name` of `object` rendered as AttributeText::value renders it;
// empty when there is no such attribute. The caller holds hdf5::Lock().
std::string ReadAttributeText(hid_t object, const char* name);

}  // namespace h5feed
