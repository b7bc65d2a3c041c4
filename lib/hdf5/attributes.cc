#include "hdf5/attributes.h"

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "h5feed/error.h"
#include "hdf5/error.h"
#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "hdf5/strings.h"
#include "make_error.h"

namespace h5feed::hdf5 {
namespace {

// "/images in /data/train.h5" for a dataset, "/ in /data/train.h5" for a file or group.
std::string ObjectName(hid_t object) {
  std::string path = "/";
  const ssize_t size = H5Iget_name(object, nullptr, 0);
  if (size > 0) {
    path.assign(static_cast<size_t>(size) + 1, '\0');
    H5Iget_name(object, path.data(), path.size());
    path.resize(static_cast<size_t>(size));
  }
  return path + " in " + FileName(object);
}

std::string AttributeName(const char* name, hid_t object) {
  return "attribute \"" + std::string(name) + "\" of " + ObjectName(object);
}

void WriteScalar(hid_t object, const char* name, hid_t file_type, hid_t memory_type,
                 const void* value) {
  auto lock = Lock();
  SilenceErrors silence;
  std::string what = "writing attribute \"" + std::string(name) + "\"";
  htri_t exists = H5Aexists(object, name);
  if (exists < 0) throw StackError(ErrorCode::kIo, what, object);
  if (exists > 0 && H5Adelete(object, name) < 0) throw StackError(ErrorCode::kIo, what, object);
  Dataspace space(H5Screate(H5S_SCALAR));
  if (!space) throw StackError(ErrorCode::kIo, what, object);
  Attribute attribute(H5Acreate2(object, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT));
  if (!attribute) throw StackError(ErrorCode::kIo, what, object);
  if (H5Awrite(attribute.get(), memory_type, value) < 0) {
    throw StackError(ErrorCode::kIo, what, object);
  }
}

// Opens attribute `name`, checks it holds one value of class `expected`.
Attribute OpenScalar(hid_t object, const char* name, H5T_class_t expected, const char* kind) {
  std::string what = "reading attribute \"" + std::string(name) + "\"";
  htri_t exists = H5Aexists(object, name);
  if (exists < 0) throw StackError(ReadFailureCode(), what, object);
  if (exists == 0) {
    throw MakeError(ErrorCode::kNotFound, "{} does not exist", AttributeName(name, object));
  }
  Attribute attribute(H5Aopen(object, name, H5P_DEFAULT));
  if (!attribute) throw StackError(ReadFailureCode(), what, object);
  Datatype type(H5Aget_type(attribute.get()));
  Dataspace space(H5Aget_space(attribute.get()));
  if (!type || !space) throw StackError(ReadFailureCode(), what, object);
  if (H5Tget_class(type.get()) != expected || H5Sget_simple_extent_npoints(space.get()) != 1) {
    throw MakeError(ErrorCode::kCorrupt, "{} is not one {} as h5feed expects",
                    AttributeName(name, object), kind);
  }
  return attribute;
}

template <typename T>
T ReadInteger(hid_t object, const char* name) {
  auto lock = Lock();
  SilenceErrors silence;
  std::string what = "reading attribute \"" + std::string(name) + "\"";
  Attribute attribute = OpenScalar(object, name, H5T_INTEGER, "integer");
  Datatype type(H5Aget_type(attribute.get()));
  if (!type) throw StackError(ReadFailureCode(), what, object);
  // HDF5 converts between integer types by clamping (-5 read as uint64 gives 0). Read through
  // the widest type of the stored signedness instead, and refuse what does not fit.
  if (H5Tget_sign(type.get()) == H5T_SGN_2) {
    int64_t value = 0;
    if (H5Aread(attribute.get(), H5T_NATIVE_INT64, &value) < 0) {
      throw StackError(ReadFailureCode(), what, object);
    }
    if (std::is_unsigned_v<T> && value < 0) {
      throw MakeError(ErrorCode::kCorrupt, "{} is {}, expected >= 0", AttributeName(name, object),
                      value);
    }
    return static_cast<T>(value);
  }
  uint64_t value = 0;
  if (H5Aread(attribute.get(), H5T_NATIVE_UINT64, &value) < 0) {
    throw StackError(ReadFailureCode(), what, object);
  }
  if (std::is_signed_v<T> && value > static_cast<uint64_t>(INT64_MAX)) {
    throw MakeError(ErrorCode::kCorrupt, "{} is {}, too large for int64",
                    AttributeName(name, object), value);
  }
  return static_cast<T>(value);
}

}  // namespace

void WriteAttribute(hid_t object, const char* name, int32_t value) {
  WriteScalar(object, name, H5T_STD_I32LE, H5T_NATIVE_INT32, &value);
}

void WriteAttribute(hid_t object, const char* name, int64_t value) {
  WriteScalar(object, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value);
}

void WriteAttribute(hid_t object, const char* name, uint64_t value) {
  WriteScalar(object, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &value);
}

void WriteAttribute(hid_t object, const char* name, std::string_view value) {
  auto lock = Lock();
  std::string text(value);  // NUL-terminated, as variable-length C strings are
  const char* pointer = text.c_str();
  Datatype type = VariableLengthUtf8Type();
  WriteScalar(object, name, type.get(), type.get(), &pointer);
}

bool HasAttribute(hid_t object, const char* name) {
  auto lock = Lock();
  SilenceErrors silence;
  htri_t exists = H5Aexists(object, name);
  if (exists < 0) {
    throw StackError(ReadFailureCode(), "looking for attribute \"" + std::string(name) + "\"",
                     object);
  }
  return exists > 0;
}

int64_t ReadInt64Attribute(hid_t object, const char* name) {
  return ReadInteger<int64_t>(object, name);
}

std::string ReadStringAttribute(hid_t object, const char* name) {
  auto lock = Lock();
  SilenceErrors silence;
  Attribute attribute = OpenScalar(object, name, H5T_STRING, "string");
  Datatype type(H5Aget_type(attribute.get()));
  Dataspace space(H5Aget_space(attribute.get()));
  std::vector<std::string> values;
  bool read =
      ReadStrings(type.get(), space.get(), values, [&](hid_t memory_type, hid_t, void* buffer) {
        return H5Aread(attribute.get(), memory_type, buffer);
      });
  if (!read || values.size() != 1) {
    throw StackError(ReadFailureCode(), "reading attribute \"" + std::string(name) + "\"", object);
  }
  return values[0];
}

}  // namespace h5feed::hdf5
