// The integer datasets of integer_dataset.h.

#include "hdf5/integer_dataset.h"

#include "h5feed/error.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/error.h"
#include "hdf5/lock.h"
#include "hdf5/whole_dataset.h"
#include "make_error.h"

namespace h5feed::hdf5 {
namespace {

// HDF5 clamps an integer that does not fit the type it is read as (2^63 + 5 stored as uint64
// reads as INT64_MAX) unless a conversion callback says otherwise. This one aborts the read
// instead, and records that a value was out of range, for the message.
H5T_conv_ret_t RefuseOutOfRange(H5T_conv_except_t kind, hid_t /*source*/, hid_t /*dest*/,
                                void* /*source_value*/, void* /*dest_value*/, void* out_of_range) {
  if (kind != H5T_CONV_EXCEPT_RANGE_HI && kind != H5T_CONV_EXCEPT_RANGE_LOW) {
    return H5T_CONV_UNHANDLED;
  }
  *static_cast<bool*>(out_of_range) = true;
  return H5T_CONV_ABORT;
}

}  // namespace

hid_t StoredIntegerType(size_t bytes, bool is_signed) {
  switch (bytes) {
    case 1: return is_signed ? H5T_STD_I8LE : H5T_STD_U8LE;
    case 2: return is_signed ? H5T_STD_I16LE : H5T_STD_U16LE;
    case 4: return is_signed ? H5T_STD_I32LE : H5T_STD_U32LE;
    case 8: return is_signed ? H5T_STD_I64LE : H5T_STD_U64LE;
  }
  throw MakeError(ErrorCode::kInternal, "no HDF5 integer type of {} bytes", bytes);
}

hid_t MemoryIntegerType(size_t bytes, bool is_signed) {
  switch (bytes) {
    case 1: return is_signed ? H5T_NATIVE_INT8 : H5T_NATIVE_UINT8;
    case 2: return is_signed ? H5T_NATIVE_INT16 : H5T_NATIVE_UINT16;
    case 4: return is_signed ? H5T_NATIVE_INT32 : H5T_NATIVE_UINT32;
    case 8: return is_signed ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64;
  }
  throw MakeError(ErrorCode::kInternal, "no HDF5 integer type of {} bytes", bytes);
}

std::vector<int64_t> ReadIntegerDataset(hid_t file, const std::string& name,
                                        const std::string& path) {
  auto lock = Lock();
  const Dataset dataset = OpenDataset(file, name, path);
  const Dataspace space(H5Dget_space(dataset.get()));
  const hssize_t count = space ? H5Sget_simple_extent_npoints(space.get()) : -1;
  if (count < 0) throw StackError(ErrorCode::kCorrupt, "reading the shape of " + name, path);
  std::vector<int64_t> values(static_cast<size_t>(count));
  if (count == 0) return values;
  bool out_of_range = false;
  const PropertyList transfer(H5Pcreate(H5P_DATASET_XFER));
  if (!transfer || H5Pset_type_conv_cb(transfer.get(), RefuseOutOfRange, &out_of_range) < 0) {
    throw StackError(ErrorCode::kInternal, "preparing to read dataset " + name, path);
  }
  if (H5Dread(dataset.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, transfer.get(), values.data()) <
      0) {
    if (out_of_range) {
      throw MakeError(ErrorCode::kCorrupt,
                      "dataset {} in {} holds a value that does not fit a signed 64-bit integer "
                      "(an unsigned value of 2^63 or more): not a label or an index h5feed can "
                      "use; store it as int64",
                      name, path);
    }
    throw StackError(ErrorCode::kCorrupt, "reading dataset " + name, path);
  }
  return values;
}

template <typename T>
std::optional<std::vector<T>> ReadIntegers(hid_t dataset, std::span<const int64_t> shape,
                                           const std::string& name) {
  auto lock = Lock();
  SilenceErrors silence;
  const Datatype type(H5Dget_type(dataset));
  const bool type_ok = type && H5Tget_class(type.get()) == H5T_INTEGER &&
                       H5Tget_size(type.get()) == sizeof(T) &&
                       (H5Tget_sign(type.get()) == H5T_SGN_2) == std::is_signed_v<T>;
  const Dataspace space(H5Dget_space(dataset));
  const int rank = space ? H5Sget_simple_extent_ndims(space.get()) : -1;
  if (!type_ok || rank != static_cast<int>(shape.size())) return std::nullopt;
  std::vector<hsize_t> dims(shape.size());
  if (rank > 0 && H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) != rank) {
    return std::nullopt;
  }
  size_t count = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0 || dims[d] != static_cast<hsize_t>(shape[d])) return std::nullopt;
    count *= static_cast<size_t>(shape[d]);
  }
  std::vector<T> values(count);
  if (count > 0) ReadWholeDataset(dataset, MemoryIntegerType<T>(), values.data(), name);
  return values;
}

template <typename T>
Dataset WriteIntegerDataset(hid_t location, const char* name, std::span<const T> values,
                            size_t columns) {
  const uint64_t dims[2] = {values.size() / columns, columns};
  return WriteWholeDataset(location, name, StoredIntegerType<T>(), MemoryIntegerType<T>(),
                           std::span<const uint64_t>(dims, columns > 1 ? 2 : 1), values.data());
}

// The integer types of integer_dataset.h, instantiated here once.
#define H5FEED_INTEGER_DATASET(T)                                                      \
  template std::optional<std::vector<T>> ReadIntegers(hid_t, std::span<const int64_t>, \
                                                      const std::string&);             \
  template Dataset WriteIntegerDataset(hid_t, const char*, std::span<const T>, size_t);
H5FEED_INTEGER_DATASET(int8_t)
H5FEED_INTEGER_DATASET(int16_t)
H5FEED_INTEGER_DATASET(int32_t)
H5FEED_INTEGER_DATASET(int64_t)
H5FEED_INTEGER_DATASET(uint8_t)
H5FEED_INTEGER_DATASET(uint16_t)
H5FEED_INTEGER_DATASET(uint32_t)
H5FEED_INTEGER_DATASET(uint64_t)
#undef H5FEED_INTEGER_DATASET

}  // namespace h5feed::hdf5
