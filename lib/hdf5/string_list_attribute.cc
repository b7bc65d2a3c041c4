// WriteStringListAttribute and ReadStringListAttribute (string_list_attribute.h).

#include "hdf5/string_list_attribute.h"

#include <algorithm>

#include "h5feed/error.h"
#include "hdf5/error.h"
#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "hdf5/strings.h"
#include "make_error.h"

namespace h5feed::hdf5 {

void WriteStringListAttribute(hid_t object, const char* name, std::span<const std::string> values) {
  auto lock = Lock();
  SilenceErrors silence;
  const std::string what = "writing attribute \"" + std::string(name) + "\"";
  const Datatype type = VariableLengthUtf8Type();
  const hsize_t dims[1] = {values.size()};
  Dataspace space(H5Screate_simple(1, dims, nullptr));
  if (!space) throw StackError(ErrorCode::kIo, what, object);
  Attribute attribute(H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
  if (!attribute) throw StackError(ErrorCode::kIo, what, object);
  std::vector<const char*> pointers(values.size());
  std::transform(values.begin(), values.end(), pointers.begin(),
                 [](const std::string& value) { return value.c_str(); });
  if (H5Awrite(attribute.get(), type.get(), pointers.data()) < 0) {
    throw StackError(ErrorCode::kIo, what, object);
  }
}

std::vector<std::string> ReadStringListAttribute(hid_t object, const char* name,
                                                 int64_t max_values) {
  auto lock = Lock();
  SilenceErrors silence;
  const std::string what = "reading attribute \"" + std::string(name) + "\"";
  const htri_t exists = H5Aexists(object, name);
  if (exists < 0) throw StackError(ReadFailureCode(), what, object);
  if (exists == 0) {
    throw MakeError(ErrorCode::kNotFound, "attribute \"{}\" of {} does not exist", name,
                    FileName(object));
  }
  Attribute attribute(H5Aopen(object, name, H5P_DEFAULT));
  Datatype type(attribute ? H5Aget_type(attribute.get()) : H5I_INVALID_HID);
  Dataspace space(attribute ? H5Aget_space(attribute.get()) : H5I_INVALID_HID);
  if (!type || !space) throw StackError(ErrorCode::kCorrupt, what, object);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  if (H5Tget_class(type.get()) != H5T_STRING || rank > 1 || count < 0 || count > max_values) {
    throw MakeError(ErrorCode::kCorrupt,
                    "attribute \"{}\" of {} is not a list of at most {} strings, as h5feed "
                    "expects",
                    name, FileName(object), max_values);
  }
  std::vector<std::string> values;
  const bool read =
      ReadStrings(type.get(), space.get(), values, [&](hid_t memory_type, hid_t, void* buffer) {
        return H5Aread(attribute.get(), memory_type, buffer);
      });
  if (!read) throw StackError(ErrorCode::kCorrupt, what, object);
  return values;
}

}  // namespace h5feed::hdf5
