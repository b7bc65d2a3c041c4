#pragma once
// An array field read chunk by chunk with the images instead of whole (docs/reader.md,
// "Fields too large for memory"): in a version 1 file, chunk c of every field holds exactly the
// rows of chunk c of /images (docs/format.md, "Fields"), so the field can be described as a
// dataset of its own whose rows are the field's rows and whose chunks are the images', and read
// by index::ChunkReader as a foreign chunked dataset is: one H5Dread_chunk under HDF5's lock,
// the field's filters undone outside it, each row checked against /field_checksums/NAME
// (ChunkReader::VerifyRow).
//
// Opens the file under hdf5::Lock() to read the field's metadata; reads no value.

#include <optional>

#include "h5feed/field.h"
#include "index/dataset_index.h"

namespace h5feed::index {

// The index ChunkReader reads field `spec` of `images`'s file with (read path kHdf5Chunk,
// `dataset` "/NAME", one row of spec.row_bytes() bytes per image, the images' chunk rows, the
// field's filters and its row checksums), or nullopt when the field cannot be read so: not an
// array, a file of images at their own size (its fields are chunked by about 1 MiB of rows,
// not with the images), chunks of another number of rows than the images', a filter h5feed
// does not undo itself. Throws Error(kCorrupt) when the field's metadata or checksums cannot
// be read (the file changed since it was opened, or is damaged).
std::optional<DatasetIndex> FieldChunkIndex(const DatasetIndex& images, const FieldSpec& spec);

}  // namespace h5feed::index
