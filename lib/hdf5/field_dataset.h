#pragma once
// Writing a field's dataset (docs/format.md, "Fields"): created with no rows, then whole chunks
// of rows appended as the Writer gathers them, the last one short. An array field is (N,
// *shape) of its element type (field_types.h) in chunks of (R, *shape), filtered as the file's
// /images; a bytes or text field is (N) of variable-length values in chunks of (R),
// unfiltered: HDF5 keeps the values themselves in its global heap, which filters never see,
// and the chunks hold only each value's length and heap address, which a reader reads to bound
// what a field claims before reading it (variable_length_claims.h).
//
// Call under hdf5::Lock() with errors silenced; used by the Writer's one thread.

#include <hdf5.h>

#include <cstdint>
#include <string>

#include "h5feed/compression.h"
#include "h5feed/field.h"
#include "hdf5/handle.h"

namespace h5feed::hdf5 {

// Creates dataset `spec.name` in `file` (named `path` in messages): no rows and no limit on
// them, chunks of `chunk_rows` rows, `compression` for an array (zstd registered here), none
// for bytes and text; no modification time (untimed_creation.h). HDF5's chunk cache is off for
// it, so each whole chunk written goes to the file at once, when the Writer has reserved the
// disk space for it. Throws Error (kIo, or kNoSpace) "creating dataset /NAME failed for PATH".
Dataset CreateFieldDataset(hid_t file, const FieldSpec& spec, int64_t chunk_rows,
                           const Compression& compression, const std::string& path);

// Extends `dataset` (field `spec`) to first_row + column.rows() rows and writes `column` as its
// rows from `first_row`. The rows are valid values of `spec` (field_row_check.h). Throws Error
// (kIo, or kNoSpace) "writing rows A to B of field NAME failed for PATH".
void WriteFieldRows(hid_t dataset, const FieldSpec& spec, int64_t first_row,
                    const FieldColumn& column, const std::string& path);

}  // namespace h5feed::hdf5
