#pragma once
// The chunk table h5feed stores beside a chunked dataset it writes (docs/format.md,
// "`/chunk_index`: the chunk table"): /chunk_index for /images, /field_chunk_index/NAME for array
// field NAME. It says where every chunk lies, so that chunks are read with pread outside HDF5's
// lock and fetched ahead; HDF5 1.10.8 would walk its chunk index from the start for each one. A
// file rewritten by another tool moves chunks and copies the table unchanged, so the table is
// checked before it is trusted: its size, every row against the file's size and the codecs'
// bounds, and a sample of rows against HDF5's own chunk index. Call under hdf5::Lock().

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

#include "index/dataset_index.h"

namespace h5feed::index {

// Which table, of which dataset, and the dataset's chunks.
struct StoredTable {
  std::string table;        // in the root group: "chunk_index", "field_chunk_index/NAME"
  std::string dataset;      // what it describes, as messages name it: "/images", "/NAME"
  int64_t chunks = 0;       // rows the table must have
  int64_t chunk_bytes = 0;  // bytes of a decoded chunk, which bound its stored bytes
  int64_t extent = 0;       // chunk c starts at c x extent along the first dimension
};

// Reads `table` of `file`, whose dataset is open as `dataset`, checks it, and returns its
// rows. `entries` rows are compared with HDF5's (TableRowMismatch), spread evenly from the
// first to the last; one at most for a remote file (each comparison walks HDF5's chunk index,
// a round trip per block of it). `index`: the file's path, size and location. Throws Error:
// kNotFound when the table does not exist, kCorrupt when it has another number of rows, a row
// lies outside the file or claims more bytes than a codec makes of a chunk, or a row compared
// differs (the file was rewritten since conversion), kUnsupported for an unknown checksum.
std::vector<ChunkLocation> ReadCheckedChunkTable(hid_t file, hid_t dataset,
                                                 const StoredTable& table, int entries,
                                                 const DatasetIndex& index);

// Compares `row`, the stored table's entry for chunk `chunk` of `table`'s dataset (open as
// `dataset`), with HDF5's own chunk index. Returns "" when they agree, else what differs
// ("chunk 3 is at byte ... by the table but ... by HDF5"). Throws Error(kCorrupt) naming
// `path` when HDF5 cannot locate the chunk at all.
std::string TableRowMismatch(hid_t dataset, const StoredTable& table, int64_t chunk,
                             const ChunkLocation& row, const std::string& path);

}  // namespace h5feed::index
