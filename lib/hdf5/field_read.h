#pragma once
// Reading a field's values through HDF5 (docs/format.md, "Fields"): what a dataset's type makes
// of it as a field, and its rows read into a FieldColumn, little-endian (h5feed/field.h)
// whatever the byte order stored. HDF5 undoes the filters. Call under hdf5::Lock() with errors
// silenced.
//
// A bytes or text read allocates what each row claims: bound the claims first
// (variable_length_claims.h), since HDF5 1.10.8 allocates and zeroes a row's claimed length
// before any allocator of ours is asked for it.

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <string>

#include "h5feed/field.h"
#include "hdf5/dataset_listing.h"

namespace h5feed::hdf5 {

struct FieldValueType {
  // The kind `dataset`'s values are; nullopt when its type is no field's (field_types.h): an
  // array's element type must be one of FieldType's, stored little-endian.
  std::optional<FieldKind> kind;
  FieldType type = FieldType::kUint8;  // an array's element type
};

FieldValueType FieldValueTypeOf(hid_t dataset);

// What dataset `name` of `file` (named `path` in messages) is as a field, from its metadata
// alone (its object header: never a value).
struct FieldDatasetEntry {
  DatasetEntry dataset;  // its type's name, shape, chunk shape and filters
  FieldValueType value;  // what its type makes of it
  // Its string attribute that names its kind ("array", "bytes", "text"); empty when it has
  // none.
  std::string declared_kind;
  // Read by the caller that knows the schema (index/field_specs.h): a mask's element type and
  // the encoding of its rows, the boxes field that box labels or values belong to, box values'
  // element type; empty when absent.
  std::string mask_type;
  std::string mask_encoding;
  std::string boxes;
  std::string box_value_type;
};

// `kind_attribute` names the attribute that declares the kind (the schema's h5feed_field).
// nullopt when `file` has no dataset `name`. Throws Error(kCorrupt) with HDF5's reason when
// its metadata cannot be read, or the attribute is not a string.
std::optional<FieldDatasetEntry> DescribeFieldDataset(hid_t file, const std::string& name,
                                                      const char* kind_attribute,
                                                      const std::string& path);

// Appends rows [first_row, first_row + rows) of `dataset`, whose values are of `spec` (checked
// by the caller: FieldValueTypeOf and the shape), to `column`. Throws Error "reading rows A to
// B of field NAME failed for PATH": kIo when HDF5 traced the failure to the operating system,
// kCorrupt otherwise (a chunk that does not decompress, a heap object that is not there).
void ReadFieldRows(hid_t dataset, const FieldSpec& spec, int64_t first_row, int64_t rows,
                   FieldColumn& column, const std::string& path);

}  // namespace h5feed::hdf5
