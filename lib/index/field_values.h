#pragma once
// A field's values read whole (docs/format.md, "Fields"): every row of one field of an
// h5feed file, each checked against its checksum, for a caller that holds a field in memory
// (a small field, read once at open as labels are; a tool that copies or verifies fields).
//
// Reads through HDF5 under hdf5::Lock() (HDF5 undoes the field's filter, h5feed's zstd
// registered in this process), a block of rows at a time (whole chunks of an array; about
// 4 MiB of a bytes or text field's values, or its longest row), so the only memory of the
// field's size is the column returned, and CheckFieldColumn holds a block alone.
// Thread-safe: any thread may call them, the lock serializes the reads.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "h5feed/field.h"
#include "index/dataset_index.h"

namespace h5feed::index {

// The bytes a column of `spec`'s `rows` rows of `value_bytes` value bytes takes: the values and
// 8 bytes a row for where each ends (FieldColumn).
uint64_t FieldColumnBytes(int64_t rows, uint64_t value_bytes);

// Checks row `row` (in image chunk `chunk`) of field `spec`, `where` ("field NAME in PATH"):
// its values against `stored`, its checksum, and against its kind (FieldRowProblem). Throws
// Error(kCorrupt) "row 1212 (chunk 18) of field attrs in train.h5: checksum mismatch ...".
void CheckFieldRow(std::span<const uint8_t> value, uint64_t stored, const FieldSpec& spec,
                   int64_t row, int64_t chunk, const std::string& where);

// A row of a field read whole that failed its read or its check (ReadFieldColumn with
// `damaged`), held in the column as zeros (an unreadable bytes or text row as an empty one).
struct DamagedFieldRow {
  int64_t row = 0;
  int64_t chunk = 0;    // the image chunk that holds it
  std::string problem;  // "row 1212 (chunk 18) of field attrs in train.h5: checksum mismatch ..."
};

// Every row of field `name` of the file `index` describes (opened again as the index was), in
// stored order. With `damaged`, a row that fails its check or whose read fails as damage
// (kCorrupt: a block whose read fails is read again a row at a time) is appended to it,
// ascending, instead of failing the read, and held as DamagedFieldRow says. Throws Error:
//  - kNotFound when the file has no such field (the message lists its fields);
//  - kInvalidArgument when the column would take more than `max_bytes` (FieldColumnBytes):
//    an array's size is its shape's, a bytes or text field's what its rows claim, read from
//    the dataset's chunks (hdf5/variable_length_claims.h) before anything of that size is
//    allocated; the message ends with `advice`, what the caller's user can do about it;
//  - kCorrupt when it would take more than the machine's physical memory (a damaged file:
//    no such field can be read whole), checked as max_bytes is;
//  - kCorrupt naming the file, the field, the row and its image chunk when a row differs from
//    its checksum ("row 1212 (chunk 18) of field attrs in train.h5: checksum mismatch ..."),
//    a text row is not UTF-8, a row claims more than 2 GiB, or the field changed since the
//    file was opened (without `damaged`, or with it for what is no one row's damage: a row's
//    claim, the field's metadata); kIo when reading fails.
FieldColumn ReadFieldColumn(const DatasetIndex& index, const std::string& name, uint64_t max_bytes,
                            std::string_view advice = "read it in parts, or allow more",
                            std::vector<DamagedFieldRow>* damaged = nullptr);

// Every row of field `name` read and checked as ReadFieldColumn does, a block at a time, none
// kept: for a caller that checks a field (h5feed verify) rather than uses it, in memory
// bounded by a block whatever the field's size. Throws what ReadFieldColumn throws, save the
// refusals of a column too large (nothing is held).
void CheckFieldColumn(const DatasetIndex& index, const std::string& name);

}  // namespace h5feed::index
