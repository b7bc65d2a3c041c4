#pragma once
// The per-image datasets of a flat (version 2) file, docs/format.md "Images at their own size":
// /image_shapes int32 (N, 3), /image_offsets and /image_bytes uint64 (N), /image_encodings
// uint8 (N). /row_checksums is row_checksums_dataset.h's. Call under hdf5::Lock(); used by the
// Writer's one thread.

#include <hdf5.h>

#include <cstdint>
#include <span>

#include "h5feed/writer.h"

namespace h5feed::format {

// Writes the four datasets of `images` (in row order) at `offsets` (one per image) to `root`.
// Throws Error (kIo, or kNoSpace when the disk is full) naming the dataset and the file.
void WriteImageRecords(hid_t root, std::span<const StoredImage> images,
                       std::span<const uint64_t> offsets);

// The bytes those datasets take in the file: 29 per image.
inline uint64_t ImageRecordBytes(size_t images) { return 29 * uint64_t{images}; }

}  // namespace h5feed::format
