#pragma once
// The index of an h5feed file of images at their own size (docs/format.md, version 2, layout
// "flat"): the per-image table (/image_shapes, /image_offsets, /image_bytes,
// /image_encodings) checked against the packing rule, from which each chunk's rows follow.
// Call under hdf5::Lock().

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

#include "index/dataset_index.h"
#include "row_locator.h"

namespace h5feed::index {

// Where the images of an own-size file lie, and the rows of each chunk: `offsets`, `bytes`,
// `shapes` (N x 3: height, width, channels) and `encodings` as stored, C = `chunk_bytes`, `chunks`
// the number of chunks /images holds. Throws Error(kCorrupt) naming `path` and the first
// image that breaks a rule of docs/format.md (a shape not positive or not 1 or 3 channels, a
// raw image whose bytes are not H x W x C, an offset out of order, an image crossing its
// chunk's end, a chunk that does not start with an image, an unknown encoding, a side longer
// than `max_side` when it is > 0, or an image over io::limits::kMaxImageBytes decoded: what a
// JPEG's header claims is what its decode allocates, so a lying table is refused here).
RowLocator CheckOwnSizeTable(const std::vector<uint64_t>& offsets,
                             const std::vector<uint64_t>& bytes, const std::vector<int32_t>& shapes,
                             const std::vector<uint8_t>& encodings, int64_t chunk_bytes,
                             int64_t chunks, int64_t max_side, const std::string& path);

// Fills the own-size part of `index` (rows, shape, chunk_samples, max_side, encoding) from
// `file`, whose /images has `chunks` chunks of `chunk_bytes`.
// Throws what CheckOwnSizeTable throws, and Error(kCorrupt) when a dataset of the table is
// missing or has another type or shape than docs/format.md gives it.
void ReadOwnSizeTable(hid_t file, int64_t samples, int64_t chunk_bytes, int64_t chunks,
                      DatasetIndex& index);

}  // namespace h5feed::index
