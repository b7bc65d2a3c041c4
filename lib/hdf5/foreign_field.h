#pragma once
// What a dataset of any HDF5 file (one h5py wrote, say) can be as a field (docs/format.md,
// "Fields"), for a conversion that carries a file's per-row datasets: `h5feed rechunk`. Wider
// than a field's stored types (field_read.h), since the values are converted as they are read:
//
//   numeric elements of FieldType's (either byte order; h5py's bool enum)   array
//   variable-length strings (UTF-8 or ASCII)                                  text
//   variable-length sequences of uint8 (h5py.vlen_dtype(numpy.uint8))        bytes
//   fixed-length strings (numpy's "S" dtypes)                                 bytes
//
// A fixed-length string's value is its bytes without its padding, as numpy gives it: trailing
// NULs stripped (null-padded, h5py's), up to the first NUL (null-terminated), trailing spaces
// stripped (space-padded). Anything else (compound, enum, reference, opaque, array types, a
// variable-length sequence of another type) is no field. Call under hdf5::Lock() with errors
// silenced.

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <string>

#include "h5feed/field.h"

namespace h5feed::hdf5 {

struct ForeignFieldType {
  std::optional<FieldKind> kind;       // nullopt: no field's values
  FieldType type = FieldType::kUint8;  // an array's element type
  bool fixed_string = false;           // bytes stored as fixed-length strings
  // When `kind` is nullopt: why, in a few words ("a compound type", "an enum other than
  // h5py's bool").
  std::string refusal;
};

ForeignFieldType ForeignFieldTypeOf(hid_t dataset);

// Appends rows [first_row, first_row + rows) of `dataset` to `column` as values of `spec`,
// whose kind (and an array's element type and shape) ForeignFieldTypeOf gave: array elements
// converted to little-endian, fixed-length strings without their padding. Throws Error
// "reading rows A to B of field NAME failed for PATH": kIo when HDF5 traced the failure to the
// operating system, kCorrupt otherwise.
void ReadForeignFieldRows(hid_t dataset, const ForeignFieldType& type, const FieldSpec& spec,
                          int64_t first_row, int64_t rows, FieldColumn& column,
                          const std::string& path);

}  // namespace h5feed::hdf5
