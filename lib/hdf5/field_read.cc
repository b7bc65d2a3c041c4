// FieldValueTypeOf and ReadFieldRows (field_read.h).

#include "hdf5/field_read.h"

#include <cstring>
#include <vector>

#include "h5feed/error.h"
#include "hdf5/attributes.h"
#include "hdf5/error.h"
#include "hdf5/field_types.h"
#include "hdf5/handle.h"
#include "hdf5/vlen_allocations.h"
#include "make_error.h"

namespace h5feed::hdf5 {

FieldValueType FieldValueTypeOf(hid_t dataset) {
  FieldValueType value;
  Datatype type(H5Dget_type(dataset));
  if (!type) return value;
  if (IsByteSequenceType(type.get())) {
    value.kind = FieldKind::kBytes;
  } else if (IsTextType(type.get())) {
    value.kind = FieldKind::kText;
  } else if (const std::optional<FieldType> element = FieldTypeOf(type.get());
             element && LittleEndian(type.get())) {
    value.kind = FieldKind::kArray;
    value.type = *element;
  }
  return value;
}

std::optional<FieldDatasetEntry> DescribeFieldDataset(hid_t file, const std::string& name,
                                                      const char* kind_attribute,
                                                      const std::string& path) {
  if (!LinkExists(file, name)) return std::nullopt;
  const Dataset dataset = OpenDataset(file, name, path);
  FieldDatasetEntry entry;
  entry.dataset = DescribeDataset(dataset.get(), "/" + name);
  entry.value = FieldValueTypeOf(dataset.get());
  if (HasAttribute(dataset.get(), kind_attribute)) {
    entry.declared_kind = ReadStringAttribute(dataset.get(), kind_attribute);
  }
  return entry;
}

void ReadFieldRows(hid_t dataset, const FieldSpec& spec, int64_t first_row, int64_t rows,
                   FieldColumn& column, const std::string& path) {
  if (rows == 0) return;
  const std::string what =
      fmt::format("reading rows {} to {} of field {}", first_row, first_row + rows - 1, spec.name);
  const std::vector<hsize_t> count = FieldDimensions(spec, rows);
  std::vector<hsize_t> start(count.size(), 0);
  start[0] = static_cast<hsize_t>(first_row);
  Dataspace file_space(H5Dget_space(dataset));
  Dataspace memory_space(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr));
  if (!file_space || !memory_space ||
      H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                          nullptr) < 0) {
    throw StackError(ReadFailureCode(), what, path);
  }
  if (StoredKind(spec) == FieldKind::kArray) {
    const Datatype type = FieldElementType(spec.type);
    const size_t row_bytes = static_cast<size_t>(spec.row_bytes());
    std::vector<uint8_t> values(static_cast<size_t>(rows) * row_bytes);
    if (H5Dread(dataset, type.get(), memory_space.get(), file_space.get(), H5P_DEFAULT,
                values.data()) < 0) {
      throw StackError(ReadFailureCode(), what, path);
    }
    for (size_t r = 0; r < static_cast<size_t>(rows); ++r) {
      column.Append(std::span<const uint8_t>(values).subspan(r * row_bytes, row_bytes));
    }
    return;
  }
  VlenAllocations allocations;
  const PropertyList transfer = allocations.TransferList();
  // Text is read in the type it is stored in (UTF-8 or ASCII): HDF5 converts no character set.
  Datatype type(StoredKind(spec) == FieldKind::kBytes ? H5Tvlen_create(H5T_NATIVE_UINT8)
                                                      : H5Dget_type(dataset));
  if (!transfer || !type) throw StackError(ReadFailureCode(), what, path);
  if (StoredKind(spec) == FieldKind::kBytes) {
    std::vector<hvl_t> values(static_cast<size_t>(rows), hvl_t{0, nullptr});
    if (H5Dread(dataset, type.get(), memory_space.get(), file_space.get(), transfer.get(),
                values.data()) < 0) {
      throw StackError(ReadFailureCode(), what, path);
    }
    for (const hvl_t& value : values) {
      column.Append({static_cast<const uint8_t*>(value.p), value.len});
    }
    return;
  }
  std::vector<char*> values(static_cast<size_t>(rows), nullptr);
  if (H5Dread(dataset, type.get(), memory_space.get(), file_space.get(), transfer.get(),
              values.data()) < 0) {
    throw StackError(ReadFailureCode(), what, path);
  }
  for (const char* value : values) {
    const size_t length = value ? std::strlen(value) : 0;
    column.Append({reinterpret_cast<const uint8_t*>(value), length});
  }
}

}  // namespace h5feed::hdf5
