#pragma once
// What `h5feed inspect` reports of a file of images at their own size (h5feed format version 2,
// layout "flat", docs/format.md "Images at their own size"): how the images are encoded, how
// many each chunk holds, the spread of their sizes and aspect ratios, and the bytes stored
// against the raw pixels'. Read from the root attributes and the per-image table
// (/image_shapes, /image_offsets, /image_bytes, /image_encodings), one dataset at a time as
// int64 (at most 40 bytes an image at once: 49 MiB for ImageNet's 1.28M images); never the
// pixels.
//
// A summary reports what it finds: it does not check the packing rule (verify does, and the
// loader at open), and counts an image in the chunk its offset falls in.

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace h5feed::inspect {

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

struct OwnSizeSummary {
  std::string encoding;         // the root attribute: "raw", "jpeg:Q" or "smart:Q"
  int64_t smart_threshold = 0;  // with "smart:Q": images of more raw bytes are JPEG; else 0
  int64_t raw_images = 0;       // /image_encodings 0
  int64_t jpeg_images = 0;      // /image_encodings 1
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
  uint64_t pixel_bytes = 0;  // sum of H * W * C: the images as raw pixels
  uint64_t image_bytes = 0;  // sum of /image_bytes: the images as stored, before compression
  double chunk_fill = 0;     // image_bytes / (chunks * C): how full the chunks are
  // /images on disk (compressed, zero tails included); 0 when unknown (SummarizeFile fills it
  // from the dataset's storage size).
  uint64_t stored_bytes = 0;
  double pixel_ratio = 0;  // pixel_bytes / stored_bytes; 0 when stored_bytes is unknown
  // What looked wrong while summarizing (a table whose lengths differ, an offset past the
  // last chunk): `h5feed verify` says more.
  std::vector<std::string> notes;
};

// Summarizes the own-size table of `file` (named `path` in messages), whose /images holds
// `images_bytes` bytes (B) for `samples` images. Call under hdf5::Lock(). Throws Error(kCorrupt)
// when a dataset of the table is missing or cannot be read as integers, when the chunk_bytes
// attribute is not positive, or when `samples` images would not fit in memory
// (io/resource_limits.h); Error(kNotFound) when chunk_bytes is absent.
OwnSizeSummary SummarizeOwnSize(hid_t file, int64_t samples, int64_t images_bytes,
                                const std::string& path);

}  // namespace h5feed::inspect
