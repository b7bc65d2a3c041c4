#pragma once
// What an HDF5 file holds, as `h5feed inspect` shows it and h5feed::InspectFile (inspect.h)
// returns it: for an h5feed file its format version, image shape and layout, chunking,
// compression ratio, classes with their counts and the skipped sources (for a file of images at
// their own size, format version 2, also their encodings, sizes, aspect ratios and chunk
// occupancy: OwnSizeSummary); for any other HDF5 file (h5py-made, NCHW or NHWC, any filters)
// what was found there and whether `h5feed rechunk` can convert it. An h5feed file's fields
// (FieldSummary) and whether it has labels are reported too.
//
// Plain data: copyable, no handle to the file, nothing to release. The command renders it as
// text or JSON (`h5feed inspect [--json]`), Python as a dict (h5feed.inspect), both from
// SummaryValue, the one spelling of its keys.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "h5feed/encoding_counts.h"
#include "h5feed/report_value.h"
#include "h5feed/skipped_source.h"
#include "h5feed/stored_layout.h"
#include "h5feed/writer.h"

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
  // The bytes HDF5 stores; 0 when unknown: a remote file's chunked datasets, whose size HDF5
  // finds by walking the chunk index (a round trip per block of it), save an h5feed file's
  // images, whose chunk table gives it in one read.
  uint64_t stored_bytes = 0;
  uint64_t logical_bytes = 0;  // elements * element size; 0 for variable-length types
  double ratio = 0;            // logical / stored; 0 when either is unknown
  // The values a variable-length dataset keeps in the file's global heap, which stored_bytes
  // (HDF5's storage size: the chunks of descriptors) leaves out: known for an h5feed file's
  // bytes and text fields (FieldSummary::heap_bytes), else 0.
  uint64_t heap_bytes = 0;
};

struct ClassCount {
  std::string name;
  int64_t count = 0;
};

// An attribute of the root group, its value rendered as text: strings as they are, numbers in
// decimal (floats with 9 significant digits), several values as "[1, 2, 3]", more than 16 as
// "uint8 array of 300 values", one that cannot be read as "<unreadable>".
struct AttributeText {
  std::string name;
  std::string value;
};

// How a file stores its rows by label: in runs of one label (class-sorted, as a walk of class
// folders writes them) or mixed. A class-sorted file read by a chunk-aware sampler (chunks:W)
// gets batches of a few classes; the Loader measures that for its sampler and warns. This is
// the file's side of it, independent of any sampler.
struct LabelOrder {
  // "sorted": each label one run, labels ascending (class after class).
  // "grouped": each label one run, in another order.
  // "clustered": fewer than a quarter of a random order's runs (long runs of one label, e.g.
  //   several class-sorted parts concatenated).
  // "mixed": anything else (a shuffled file has about random_runs).
  std::string order;
  int64_t runs = 0;     // maximal runs of consecutive rows with one label
  int64_t classes = 0;  // distinct labels
  // The expected runs of a random order of the same labels: N - sum n_c (n_c - 1) / N, for
  // n_c rows of label c (each of the N - 1 neighbours differs unless both have one label).
  double random_runs = 0;

  // "sorted by label", "grouped by label", "clustered by label", "mixed".
  std::string Describe() const;
  // Whether a chunk-aware sampler's batches are likely to hold few classes: sorted, grouped
  // or clustered.
  bool InRuns() const { return order != "mixed"; }
};

// The smallest, median (the lower of the middle two for an even count) and largest of a
// quantity over the images.
struct SizeSpread {
  int64_t min = 0;
  int64_t median = 0;
  int64_t max = 0;
};

// Images by the shape of their frame. Square: the sides differ by at most 5% of the longer one
// (a 1:1 crop survives rounding, a 4:3 or 5:4 photo does not); portrait: taller than that;
// landscape: wider.
struct AspectCounts {
  int64_t portrait = 0;
  int64_t square = 0;
  int64_t landscape = 0;
};

// A file of images at their own size (h5feed format version 2, layout "flat",
// docs/format.md "Images at their own size"): how the images are encoded, how many each chunk
// holds, the spread of their sizes and aspect ratios, and the bytes stored against the raw
// pixels'. It reports what it finds: the packing rule is checked by verify (and the Loader at
// open), and an image is counted in the chunk its offset falls in.
struct OwnSizeSummary {
  std::string encoding;         // the root attribute: "raw", "jpeg:Q" or "smart:Q"
  int64_t smart_threshold = 0;  // with "smart:Q": images of more raw bytes are JPEG; else 0
  EncodingCounts encodings;     // the images by their value of /image_encodings
  int64_t max_side = 0;         // the converter's cap on the longer side; 0: none
  int64_t chunk_bytes = 0;      // C, every chunk's bytes before compression
  int64_t chunks = 0;           // the chunks /images holds (its length / C)
  // Images a chunk holds: the mean over all chunks, the fewest and the most.
  double mean_images_per_chunk = 0;
  int64_t min_images_per_chunk = 0;
  int64_t max_images_per_chunk = 0;
  SizeSpread height, width;
  int64_t gray_images = 0;  // of 1 channel (the others have 3)
  AspectCounts aspect;
  uint64_t pixel_bytes = 0;   // sum of H * W * C: the images as raw pixels
  uint64_t image_bytes = 0;   // sum of /image_bytes: the images as stored, before compression
  double chunk_fill = 0;      // image_bytes / (chunks * C): how full the chunks are
  uint64_t stored_bytes = 0;  // /images on disk (compressed, zero tails included); 0: unknown
  double pixel_ratio = 0;     // pixel_bytes / stored_bytes; 0 when stored_bytes is unknown
  // What looked wrong while summarizing (a table whose lengths differ, an offset past the
  // last chunk): `h5feed verify` says more.
  std::vector<std::string> notes;
};

// A field of an h5feed file (docs/format.md, "Fields"), as its dataset's metadata says.
struct FieldSummary {
  std::string name;
  std::string kind;            // "array", "bytes" or "text": its h5feed_field attribute
  std::string dtype;           // an array's element type, numpy's name ("bool"); else empty
  std::vector<int64_t> shape;  // an array's row shape (empty: a scalar); else empty
  std::string type;            // how messages show it: "bool[40]", "float32", "text"
  // Its bytes in the file: an array's chunks as stored; a bytes or text field's chunks (a
  // descriptor of 16 bytes a row) and heap_bytes; 0 when unknown.
  uint64_t stored_bytes = 0;
  // The bytes of its values: an array's rows x row bytes; a bytes or text field's values as
  // its rows claim them (read from its chunks, local files only); 0 when unknown.
  uint64_t value_bytes = 0;
  // Where its values are stored: "chunks" (an array's, filtered as its dataset is) or "global
  // heap" (a bytes or text field's: HDF5 keeps each value in the file's global heap as it is,
  // which no filter compresses; the chunks hold only descriptors; docs/format.md, "Fields").
  std::string storage;
  // A bytes or text field's values as its global heap holds them, each with its object's
  // header and padding (hdf5/variable_length_claims.h); part of stored_bytes. 0 for an array,
  // or when unknown (a remote file: its chunks are not read).
  uint64_t heap_bytes = 0;
};

// Which dataset holds the images follows the Loader's rule (docs/hdf5.md): what a summary
// reports as images is what the Loader, rechunk and verify read.
struct FileSummary {
  std::string path;  // as given; a URL without its query or user information
  uint64_t file_bytes = 0;
  bool is_h5feed = false;                 // has the h5feed format attributes
  int32_t format_version = 0;             // 0 when not an h5feed file
  std::vector<DatasetSummary> datasets;   // every dataset, in name order
  std::vector<AttributeText> attributes;  // of the root group, in name order

  // The image dataset; has_images is false when the file has none h5feed can use.
  bool has_images = false;
  std::string images;  // its name
  // NHWC or NCHW; NHW for grayscale (N, H, W), read as H x W x 1 (channels 1); flat for
  // images at their own size (h5feed format version 2, own_size below). Rendered by ToString.
  StoredLayout layout = StoredLayout::kNHWC;
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
  std::vector<SkippedSource> skipped;
  // An h5feed file written without labels says so (`labelled` 0): its samples have none.
  bool labelled = true;
  std::vector<FieldSummary> fields;  // an h5feed file's, in its order
  // The names and source ids of box labels' classes (convert coco's); empty without a table.
  BoxClasses box_classes;
  // What a person should know: a foreign file, a guessed layout, why there are no images.
  std::vector<std::string> notes;
};

// Every field of `summary` as named values, keys in the order FileSummary declares them: what
// `h5feed inspect --json` writes and h5feed.inspect() returns. Absent parts (no images, no
// label order, no skipped list) are null. The images also have "chunk_bytes", a chunk's bytes
// before compression (C of an own-size file, K x H x W x C of another; 0: not chunked), and an
// own-size file's images their counts per encoding under "encodings" (EncodingCountsValue).
// A field's "dtype" is null but for an array.
ReportValue SummaryValue(const FileSummary& summary);

}  // namespace h5feed
