#pragma once
// SummarizeOwnSize: what `h5feed inspect` reports of a file of images at their own size
// (OwnSizeSummary, h5feed/file_summary.h; format version 2, layout "flat", docs/format.md
// "Images at their own size"): how the images are encoded, how many each chunk holds, the
// spread of their sizes and aspect ratios, and the bytes stored against the raw pixels'. Read
// from the root attributes and the per-image table (/image_shapes, /image_offsets,
// /image_bytes, /image_encodings), one dataset at a time as int64 (at most 40 bytes an image
// at once: 49 MiB for ImageNet's 1.28M images); never the pixels.
//
// A summary reports what it finds: it does not check the packing rule (verify does, and the
// loader at open), and counts an image in the chunk its offset falls in.

#include <hdf5.h>

#include <cstdint>
#include <string>

#include "h5feed/file_summary.h"

namespace h5feed::summary {

// Summarizes the own-size table of `file` (named `path` in messages), whose /images holds
// `images_bytes` bytes (B) for `samples` images. Call under hdf5::Lock(). Throws Error(kCorrupt)
// when a dataset of the table is missing or cannot be read as integers, when the chunk_bytes
// attribute is not positive, or when `samples` images would not fit in memory
// (io/resource_limits.h); Error(kNotFound) when chunk_bytes is absent.
OwnSizeSummary SummarizeOwnSize(hid_t file, int64_t samples, int64_t images_bytes,
                                const std::string& path);

}  // namespace h5feed::summary
