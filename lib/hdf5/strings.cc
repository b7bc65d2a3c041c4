#include "hdf5/strings.h"

#include <algorithm>
#include <cstring>

#include "h5feed/error.h"
#include "hdf5/error.h"
#include "hdf5/lock.h"
#include "hdf5/untimed_creation.h"
#include "hdf5/vlen_allocations.h"
#include "make_error.h"

namespace h5feed::hdf5 {
namespace {

std::string DatasetName(const char* name, hid_t location) {
  return "dataset " + std::string(name) + " in " + FileName(location);
}

bool ReadVariableLength(hid_t stored_type, hid_t space, size_t count,
                        std::vector<std::string>& values, const StringReadFunction& read) {
  Datatype memory_type(H5Tcopy(H5T_C_S1));
  if (!memory_type || H5Tset_size(memory_type.get(), H5T_VARIABLE) < 0 ||
      H5Tset_cset(memory_type.get(), H5Tget_cset(stored_type)) < 0) {
    return false;
  }
  VlenAllocations allocations;
  PropertyList transfer = allocations.TransferList();
  if (!transfer) return false;
  std::vector<char*> pointers(count, nullptr);
  const bool read_all = read(memory_type.get(), transfer.get(), pointers.data()) >= 0;
  if (read_all) {
    values.reserve(count);
    for (const char* pointer : pointers) values.emplace_back(pointer ? pointer : "");
  }
  // Frees the strings that reached `pointers` (the ones an attribute read allocated with
  // HDF5's default allocator included); `allocations` frees whatever a failed read left.
  const herr_t reclaimed =
      H5Dvlen_reclaim(memory_type.get(), space, transfer.get(), pointers.data());
  return read_all && reclaimed >= 0;
}

bool ReadFixedLength(hid_t stored_type, size_t count, std::vector<std::string>& values,
                     const StringReadFunction& read) {
  Datatype memory_type(H5Tcopy(stored_type));
  if (!memory_type) return false;
  size_t size = H5Tget_size(stored_type);
  H5T_str_t padding = H5Tget_strpad(stored_type);
  std::vector<char> buffer(std::max<size_t>(count * size, 1));
  if (read(memory_type.get(), H5P_DEFAULT, buffer.data()) < 0) return false;
  values.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const char* begin = buffer.data() + i * size;
    size_t length = strnlen(begin, size);
    if (padding == H5T_STR_SPACEPAD) {
      while (length > 0 && begin[length - 1] == ' ') --length;
    }
    values.emplace_back(begin, length);
  }
  return true;
}

}  // namespace

Datatype VariableLengthUtf8Type() {
  auto lock = Lock();
  Datatype type(H5Tcopy(H5T_C_S1));
  if (!type || H5Tset_size(type.get(), H5T_VARIABLE) < 0 ||
      H5Tset_cset(type.get(), H5T_CSET_UTF8) < 0) {
    throw StackError(ErrorCode::kInternal, "creating the variable-length UTF-8 string type",
                     "(no file)");
  }
  return type;
}

bool ReadStrings(hid_t stored_type, hid_t space, std::vector<std::string>& values,
                 const StringReadFunction& read) {
  auto lock = Lock();
  values.clear();
  hssize_t points = H5Sget_simple_extent_npoints(space);
  if (points < 0) return false;
  if (points == 0) return true;
  htri_t variable = H5Tis_variable_str(stored_type);
  if (variable < 0) return false;
  size_t count = static_cast<size_t>(points);
  return variable > 0 ? ReadVariableLength(stored_type, space, count, values, read)
                      : ReadFixedLength(stored_type, count, values, read);
}

void WriteStringDataset(hid_t location, const char* name, std::span<const std::string> values) {
  auto lock = Lock();
  SilenceErrors silence;
  std::string what = "writing dataset " + std::string(name);
  Datatype type = VariableLengthUtf8Type();
  hsize_t dims[1] = {values.size()};
  Dataspace space(H5Screate_simple(1, dims, nullptr));
  if (!space) throw StackError(ErrorCode::kIo, what, location);
  const PropertyList untimed = UntimedDatasetCreation();
  Dataset dataset(
      H5Dcreate2(location, name, type.get(), space.get(), H5P_DEFAULT, untimed.get(), H5P_DEFAULT));
  if (!dataset) throw StackError(ErrorCode::kIo, what, location);
  if (values.empty()) return;
  std::vector<const char*> pointers(values.size());
  std::transform(values.begin(), values.end(), pointers.begin(),
                 [](const std::string& value) { return value.c_str(); });
  if (H5Dwrite(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()) < 0) {
    throw StackError(ErrorCode::kIo, what, location);
  }
}

std::vector<std::string> ReadStringDataset(hid_t location, const char* name) {
  auto lock = Lock();
  SilenceErrors silence;
  std::string what = "reading dataset " + std::string(name);
  htri_t exists = H5Lexists(location, name, H5P_DEFAULT);
  if (exists < 0) throw StackError(ReadFailureCode(), what, location);
  if (exists == 0) {
    throw MakeError(ErrorCode::kNotFound, "{} does not exist", DatasetName(name, location));
  }
  Dataset dataset(H5Dopen2(location, name, H5P_DEFAULT));
  if (!dataset) throw StackError(ReadFailureCode(), what, location);
  Datatype type(H5Dget_type(dataset.get()));
  Dataspace space(H5Dget_space(dataset.get()));
  if (!type || !space) throw StackError(ReadFailureCode(), what, location);
  if (H5Tget_class(type.get()) != H5T_STRING) {
    throw MakeError(ErrorCode::kCorrupt, "{} does not hold strings, as h5feed expects",
                    DatasetName(name, location));
  }
  std::vector<std::string> values;
  bool read = ReadStrings(
      type.get(), space.get(), values, [&](hid_t memory_type, hid_t transfer, void* buffer) {
        return H5Dread(dataset.get(), memory_type, H5S_ALL, H5S_ALL, transfer, buffer);
      });
  if (!read) throw StackError(ReadFailureCode(), what, location);
  return values;
}

}  // namespace h5feed::hdf5
