#include "format/row_checksums_dataset.h"

#include <string>

#include "format/checksum_attribute.h"
#include "format/schema.h"
#include "h5feed/error.h"
#include "hdf5/error.h"
#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "hdf5/untimed_creation.h"
#include "make_error.h"

namespace h5feed::format {

void WriteRowChecksums(hid_t location, std::span<const uint64_t> checksums) {
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  const std::string what = "writing dataset /" + std::string(schema::kRowChecksums);
  const hsize_t dims[1] = {checksums.size()};
  hdf5::Dataspace space(H5Screate_simple(1, dims, nullptr));
  if (!space) throw hdf5::StackError(ErrorCode::kIo, what, location);
  const hdf5::PropertyList untimed = hdf5::UntimedDatasetCreation();
  hdf5::Dataset dataset(H5Dcreate2(location, schema::kRowChecksums, H5T_STD_U64LE, space.get(),
                                   H5P_DEFAULT, untimed.get(), H5P_DEFAULT));
  if (!dataset) throw hdf5::StackError(ErrorCode::kIo, what, location);
  if (!checksums.empty() && H5Dwrite(dataset.get(), H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL,
                                     H5P_DEFAULT, checksums.data()) < 0) {
    throw hdf5::StackError(ErrorCode::kIo, what, location);
  }
  WriteChecksumAttribute(dataset.get());
}

std::optional<std::vector<uint64_t>> ReadRowChecksums(hid_t location, int64_t rows) {
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  const std::string what = "reading dataset /" + std::string(schema::kRowChecksums);
  const htri_t exists = H5Lexists(location, schema::kRowChecksums, H5P_DEFAULT);
  if (exists < 0) throw hdf5::StackError(ErrorCode::kIo, what, location);
  if (exists == 0) return std::nullopt;
  hdf5::Dataset dataset(H5Dopen2(location, schema::kRowChecksums, H5P_DEFAULT));
  if (!dataset) throw hdf5::StackError(ErrorCode::kCorrupt, what, location);

  RequireKnownChecksum(dataset.get(), hdf5::DatasetWhere(location, schema::kRowChecksums));
  hdf5::Datatype type(H5Dget_type(dataset.get()));
  if (!type) throw hdf5::StackError(ErrorCode::kCorrupt, what, location);
  const bool is_u64 = H5Tget_class(type.get()) == H5T_INTEGER && H5Tget_size(type.get()) == 8 &&
                      H5Tget_sign(type.get()) == H5T_SGN_NONE;
  hdf5::Dataspace space(H5Dget_space(dataset.get()));
  const int rank = space ? H5Sget_simple_extent_ndims(space.get()) : -1;
  const hssize_t count = space ? H5Sget_simple_extent_npoints(space.get()) : -1;
  if (!is_u64 || rank != 1 || count != rows) {
    throw MakeError(
        ErrorCode::kCorrupt,
        "{} is not {} unsigned 64-bit checksums, one per image: the file is damaged; convert it "
        "again",
        hdf5::DatasetWhere(location, schema::kRowChecksums), rows);
  }
  std::vector<uint64_t> checksums(static_cast<size_t>(rows));
  if (rows > 0 && H5Dread(dataset.get(), H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                          checksums.data()) < 0) {
    throw hdf5::StackError(ErrorCode::kCorrupt, what, location);
  }
  return checksums;
}

}  // namespace h5feed::format
