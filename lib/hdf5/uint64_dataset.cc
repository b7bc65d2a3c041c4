// WriteUint64Dataset, ReadUint64Dataset and HoldsUint64Rows (uint64_dataset.h).

#include "hdf5/uint64_dataset.h"

#include "h5feed/error.h"
#include "hdf5/error.h"
#include "hdf5/lock.h"
#include "hdf5/untimed_creation.h"
#include "make_error.h"

namespace h5feed::hdf5 {
namespace {

// `name` of `location` open when it is a dataset of (rows) unsigned 64-bit integers.
Dataset OpenUint64Rows(hid_t location, const std::string& name, int64_t rows) {
  if (H5Lexists(location, name.c_str(), H5P_DEFAULT) <= 0) return Dataset();
  Dataset dataset(H5Dopen2(location, name.c_str(), H5P_DEFAULT));
  Datatype type(dataset ? H5Dget_type(dataset.get()) : H5I_INVALID_HID);
  Dataspace space(dataset ? H5Dget_space(dataset.get()) : H5I_INVALID_HID);
  if (!type || !space) return Dataset();
  const bool is_u64 = H5Tget_class(type.get()) == H5T_INTEGER && H5Tget_size(type.get()) == 8 &&
                      H5Tget_sign(type.get()) == H5T_SGN_NONE;
  if (!is_u64 || H5Sget_simple_extent_ndims(space.get()) != 1 ||
      H5Sget_simple_extent_npoints(space.get()) != rows) {
    return Dataset();
  }
  return dataset;
}

}  // namespace

Dataset WriteUint64Dataset(hid_t location, const char* name, std::span<const uint64_t> values) {
  auto lock = Lock();
  SilenceErrors silence;
  const std::string what = "writing dataset " + std::string(name);
  const hsize_t dims[1] = {values.size()};
  Dataspace space(H5Screate_simple(1, dims, nullptr));
  if (!space) throw StackError(ErrorCode::kIo, what, location);
  const PropertyList untimed = UntimedDatasetCreation();
  Dataset dataset(H5Dcreate2(location, name, H5T_STD_U64LE, space.get(), H5P_DEFAULT, untimed.get(),
                             H5P_DEFAULT));
  if (!dataset) throw StackError(ErrorCode::kIo, what, location);
  if (!values.empty() && H5Dwrite(dataset.get(), H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                  values.data()) < 0) {
    throw StackError(ErrorCode::kIo, what, location);
  }
  return dataset;
}

std::optional<std::vector<uint64_t>> ReadUint64Dataset(hid_t location, const std::string& name,
                                                       int64_t rows, const std::string& path) {
  auto lock = Lock();
  SilenceErrors silence;
  const Dataset dataset = OpenUint64Rows(location, name, rows);
  if (!dataset) return std::nullopt;
  std::vector<uint64_t> values(static_cast<size_t>(rows));
  if (rows > 0 &&
      H5Dread(dataset.get(), H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0) {
    const ErrorCode code = ErrorStackErrno() != 0 ? ErrorCode::kIo : ErrorCode::kCorrupt;
    throw StackError(code, "reading dataset " + name, path);
  }
  return values;
}

bool HoldsUint64Rows(hid_t location, const std::string& name, int64_t rows) {
  auto lock = Lock();
  SilenceErrors silence;
  return OpenUint64Rows(location, name, rows).valid();
}

}  // namespace h5feed::hdf5
