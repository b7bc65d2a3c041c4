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

}  // namespace h5feed::index
