// ForeignFieldTypeOf and ReadForeignFieldRows (foreign_field.h).

#include "hdf5/foreign_field.h"

#include <vector>

#include "hdf5/error.h"
#include "hdf5/field_read.h"
#include "hdf5/field_types.h"
#include "hdf5/handle.h"
#include "make_error.h"

namespace h5feed::hdf5 {
namespace {

// A fixed-length string's value: its `size` bytes without the padding `pad` says it has.
std::span<const uint8_t> Unpadded(const uint8_t* value, size_t size, H5T_str_t pad) {
  size_t length = size;
  if (pad == H5T_STR_NULLTERM) {
    for (length = 0; length < size && value[length] != 0;) ++length;
  } else {
    const uint8_t padding = pad == H5T_STR_SPACEPAD ? ' ' : 0;
    while (length > 0 && value[length - 1] == padding) --length;
  }
  return {value, length};
}

std::string Refusal(H5T_class_t type_class) {
  switch (type_class) {
    case H5T_COMPOUND: return "a compound type";
    case H5T_ENUM: return "an enum other than h5py's bool";
    case H5T_REFERENCE: return "a reference type";
    case H5T_OPAQUE: return "an opaque type";
    case H5T_ARRAY: return "an array type (give its elements their own dimensions)";
    case H5T_VLEN: return "a variable-length sequence other than of uint8";
    case H5T_BITFIELD: return "a bitfield type";
    case H5T_TIME: return "a time type";
    default: return "a type no field holds";
  }
}

}  // namespace

ForeignFieldType ForeignFieldTypeOf(hid_t dataset) {
  ForeignFieldType result;
  Datatype type(H5Dget_type(dataset));
  if (!type) {
    result.refusal = "a type HDF5 cannot read";
    return result;
  }
  const H5T_class_t type_class = H5Tget_class(type.get());
  if (IsByteSequenceType(type.get())) {
    result.kind = FieldKind::kBytes;
  } else if (IsTextType(type.get())) {
    result.kind = FieldKind::kText;
  } else if (type_class == H5T_STRING) {
    result.kind = FieldKind::kBytes;  // fixed-length: variable-length ones are text above
    result.fixed_string = true;
  } else if (const std::optional<FieldType> element = FieldTypeOf(type.get())) {
    result.kind = FieldKind::kArray;
    result.type = *element;
  } else {
    result.refusal = Refusal(type_class);
  }
  return result;
}

void ReadForeignFieldRows(hid_t dataset, const ForeignFieldType& type, const FieldSpec& spec,
                          int64_t first_row, int64_t rows, FieldColumn& column,
                          const std::string& path) {
  if (!type.fixed_string) {
    // Arrays are read through little-endian element types, which HDF5 converts to.
    ReadFieldRows(dataset, spec, first_row, rows, column, path);
    return;
  }
  if (rows == 0) return;
  const std::string what =
      fmt::format("reading rows {} to {} of field {}", first_row, first_row + rows - 1, spec.name);
  const hsize_t start[1] = {static_cast<hsize_t>(first_row)};
  const hsize_t count[1] = {static_cast<hsize_t>(rows)};
  Datatype file_type(H5Dget_type(dataset));
  Dataspace file_space(H5Dget_space(dataset));
  Dataspace memory_space(H5Screate_simple(1, count, nullptr));
  if (!file_type || !file_space || !memory_space ||
      H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) < 0) {
    throw StackError(ReadFailureCode(), what, path);
  }
  // Read in the stored type itself: HDF5 converts nothing, padding included.
  const size_t size = H5Tget_size(file_type.get());
  const H5T_str_t pad = H5Tget_strpad(file_type.get());
  std::vector<uint8_t> values(static_cast<size_t>(rows) * size);
  if (size == 0 || pad == H5T_STR_ERROR ||
      H5Dread(dataset, file_type.get(), memory_space.get(), file_space.get(), H5P_DEFAULT,
              values.data()) < 0) {
    throw StackError(ReadFailureCode(), what, path);
  }
  for (size_t r = 0; r < static_cast<size_t>(rows); ++r) {
    column.Append(Unpadded(values.data() + r * size, size, pad));
  }
}

}  // namespace h5feed::hdf5
