#pragma once
// How masks are compressed (docs/format.md, "Masks and boxes"): whatever the images are, since
// class ids compress tens of times better than photos and are read whole once, at open.
//   version 1  an (N, H, W) array filtered as the images are, or with zstd when the images
//              are stored uncompressed (MaskCompression);
//   version 2  bytes rows, which HDF5 does not filter: each row is one zstd frame of its
//              H_n x W_n values (with its content size), marked by the dataset's attribute
//              h5feed_mask_encoding = "zstd". A row's checksum covers its values, as a
//              version 1 row's does, so it checks the decompression too.
// Files written before masks were compressed have no such attribute: their rows are values.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "h5feed/compression.h"
#include "h5feed/field.h"

namespace h5feed::format {

// The filter of a version 1 mask dataset in a file whose images are stored with `images`.
Compression MaskCompression(const Compression& images);

// Whether `spec`'s rows are stored as zstd frames (a version 2 mask).
bool CompressesRows(const FieldSpec& spec);

// The zstd frame of one version 2 mask row `values` (its level: `images`' when zstd, else 3),
// into `frame`.
void CompressMaskRow(std::span<const uint8_t> values, const Compression& images,
                     std::vector<uint8_t>& frame);

// The values of the row stored as `frame`, which must be exactly `value_bytes` (its image's
// H_n x W_n x the element's bytes), appended to `column`. Throws Error(kCorrupt) saying what
// is wrong (not a zstd frame, another size, damaged data); the caller adds the row and file.
void AppendDecompressedMaskRow(std::span<const uint8_t> frame, uint64_t value_bytes,
                               FieldColumn& column);

}  // namespace h5feed::format
