#pragma once
// An array field read chunk by chunk with the images instead of whole (docs/reader.md,
// "Fields too large for memory"): the field described as a dataset of its own, whose rows are
// the field's rows and whose chunks are the field's (in a file of one image size, the images'
// K rows, so that chunk c of the field holds the rows of chunk c of the images; in a file of
// images at their own size, about 1 MiB of rows: docs/format.md, "Fields"), read by
// index::ChunkReader as /images is: by address, from the field's stored chunk table
// (/field_chunk_index/NAME, checked as /chunk_index is), so that its chunks are fetched ahead
// too; in a file written before those tables, as a foreign chunked dataset is: one
// H5Dread_chunk under HDF5's lock. Either way the field's filters are undone outside the lock.
// Its rows' checksums come with it (row_checksums).
//
// Opens the file under hdf5::Lock() to read the field's metadata and checksums.

#include <optional>

#include "h5feed/field.h"
#include "index/dataset_index.h"

namespace h5feed::index {

// The index ChunkReader reads field `spec` of `images`'s file with (read path kStoredTable
// with the table's chunks, or kHdf5Chunk without a table; `dataset` "/NAME", one row of
// spec.row_bytes() bytes per image, the field's chunk rows, its filters and its row checksums),
// or nullopt when the field cannot be read so: not an array, more than 3-D, chunks that cut
// rows, a filter h5feed does not undo itself. `table_entries`: how many of the table's rows
// are compared with HDF5's chunk index (ReadCheckedChunkTable; verify compares all). Throws
// Error(kCorrupt) when the field's metadata or checksums are not what the index saw (the file
// changed since it was opened, or is damaged), or its chunk table does not match the file.
std::optional<DatasetIndex> FieldChunkIndex(
    const DatasetIndex& images, const FieldSpec& spec,
    int table_entries = IndexOptions{}.verify_table_entries);

}  // namespace h5feed::index
