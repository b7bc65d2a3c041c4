#pragma once
// The index of an h5feed file (docs/format.md, versions 1 and 2): geometry from /images, chunk
// locations and checksums from the stored table /chunk_index, checked against the file
// before they are trusted. Call under hdf5::Lock().

#include <hdf5.h>

#include <cstdint>
#include <string>

#include "index/dataset_index.h"

namespace h5feed::index {

// Fills `index` (whose `path` is set) from `file`, an open h5feed file (its h5feed_format
// attribute says "h5feed"). Throws Error: kUnsupported for a format version newer than 2 or a
// filter pipeline format 1 does not allow; kCorrupt when the file contradicts its own
// metadata or its chunk table does not match the chunks HDF5 knows (a repacked file).
void ReadH5feedIndex(hid_t file, const IndexOptions& options, DatasetIndex& index);

// Compares `row`, the stored table's entry for chunk `chunk` of /images (`images`, whose chunk
// c starts at c x `chunk_images` along the first dimension), with HDF5's own chunk index (one
// B-tree lookup). Returns "" when they agree, else what differs ("chunk 3 is at byte ... by the
// table but ... by HDF5"). Throws Error(kCorrupt) when HDF5 cannot locate the chunk at all.
std::string TableRowMismatch(hid_t images, int64_t chunk, int64_t chunk_images,
                             const ChunkLocation& row, const std::string& path);

}  // namespace h5feed::index
