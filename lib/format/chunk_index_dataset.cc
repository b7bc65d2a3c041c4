#include "format/chunk_index_dataset.h"

#include <cstddef>
#include <string>

#include "format/checksum_attribute.h"
#include "h5feed/error.h"
#include "hdf5/error.h"
#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "hdf5/untimed_creation.h"
#include "make_error.h"

namespace h5feed::format {
namespace {

constexpr size_t kPackedRowBytes = 28;

struct Field {
  const char* name;
  size_t memory_offset;
  size_t file_offset;
  bool is_32_bit;
};

constexpr Field kFields[] = {
    {"address", offsetof(schema::ChunkRecord, address), 0, false},
    {"stored_bytes", offsetof(schema::ChunkRecord, stored_bytes), 8, false},
    {"filter_mask", offsetof(schema::ChunkRecord, filter_mask), 16, true},
    {"checksum", offsetof(schema::ChunkRecord, checksum), 20, false},
};

// The compound type of a row on disk (packed, little-endian) or in memory (the struct).
hdf5::Datatype RowType(bool on_disk) {
  hdf5::Datatype type(
      H5Tcreate(H5T_COMPOUND, on_disk ? kPackedRowBytes : sizeof(schema::ChunkRecord)));
  if (!type) return type;
  for (const Field& field : kFields) {
    hid_t member = on_disk ? (field.is_32_bit ? H5T_STD_U32LE : H5T_STD_U64LE)
                           : (field.is_32_bit ? H5T_NATIVE_UINT32 : H5T_NATIVE_UINT64);
    size_t offset = on_disk ? field.file_offset : field.memory_offset;
    if (H5Tinsert(type.get(), field.name, offset, member) < 0) return hdf5::Datatype();
  }
  return type;
}

}  // namespace

void WriteChunkIndex(hid_t location, std::span<const schema::ChunkRecord> records) {
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  std::string what = "writing dataset /" + std::string(schema::kChunkIndex);
  hdf5::Datatype file_type = RowType(true);
  hdf5::Datatype memory_type = RowType(false);
  if (!file_type || !memory_type) throw hdf5::StackError(ErrorCode::kInternal, what, location);
  hsize_t dims[1] = {records.size()};
  hdf5::Dataspace space(H5Screate_simple(1, dims, nullptr));
  if (!space) throw hdf5::StackError(ErrorCode::kIo, what, location);
  const hdf5::PropertyList untimed = hdf5::UntimedDatasetCreation();
  hdf5::Dataset dataset(H5Dcreate2(location, schema::kChunkIndex, file_type.get(), space.get(),
                                   H5P_DEFAULT, untimed.get(), H5P_DEFAULT));
  if (!dataset) throw hdf5::StackError(ErrorCode::kIo, what, location);
  if (!records.empty() && H5Dwrite(dataset.get(), memory_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                   records.data()) < 0) {
    throw hdf5::StackError(ErrorCode::kIo, what, location);
  }
  WriteChecksumAttribute(dataset.get());
}

std::vector<schema::ChunkRecord> ReadChunkIndex(hid_t location, int64_t max_rows) {
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  std::string what = "reading dataset /" + std::string(schema::kChunkIndex);
  htri_t exists = H5Lexists(location, schema::kChunkIndex, H5P_DEFAULT);
  if (exists < 0) throw hdf5::StackError(ErrorCode::kIo, what, location);
  if (exists == 0)
    throw MakeError(ErrorCode::kNotFound, "{} does not exist",
                    hdf5::DatasetWhere(location, schema::kChunkIndex));
  hdf5::Dataset dataset(H5Dopen2(location, schema::kChunkIndex, H5P_DEFAULT));
  if (!dataset) throw hdf5::StackError(ErrorCode::kIo, what, location);

  RequireKnownChecksum(dataset.get(), hdf5::DatasetWhere(location, schema::kChunkIndex));
  hdf5::Datatype stored_type(H5Dget_type(dataset.get()));
  if (!stored_type) throw hdf5::StackError(ErrorCode::kIo, what, location);
  if (H5Tget_class(stored_type.get()) != H5T_COMPOUND) {
    throw MakeError(ErrorCode::kCorrupt, "{} is not a compound dataset",
                    hdf5::DatasetWhere(location, schema::kChunkIndex));
  }
  for (const Field& field : kFields) {
    if (H5Tget_member_index(stored_type.get(), field.name) < 0) {
      throw MakeError(ErrorCode::kCorrupt, "{} has no field \"{}\"",
                      hdf5::DatasetWhere(location, schema::kChunkIndex), field.name);
    }
  }
  // Only the exact row type h5feed writes is converted by H5Dread: HDF5 1.10.8's compound
  // conversion reads freed memory for some damaged member layouts (found by fuzzing,
  // docs/fuzzing.md), and no h5feed file holds another type.
  hdf5::Datatype written_type = RowType(true);
  if (!written_type) throw hdf5::StackError(ErrorCode::kInternal, what, location);
  if (H5Tequal(stored_type.get(), written_type.get()) <= 0) {
    throw MakeError(
        ErrorCode::kCorrupt,
        "{} does not have the row type h5feed writes: the file is damaged; convert it again",
        hdf5::DatasetWhere(location, schema::kChunkIndex));
  }
  hdf5::Dataspace space(H5Dget_space(dataset.get()));
  hssize_t rows = space ? H5Sget_simple_extent_npoints(space.get()) : -1;
  if (rows < 0) throw hdf5::StackError(ErrorCode::kIo, what, location);
  if (rows > max_rows) {
    throw MakeError(
        ErrorCode::kCorrupt,
        "{} has {} rows where at most {} chunks exist: the file is damaged; convert it again",
        hdf5::DatasetWhere(location, schema::kChunkIndex), rows, max_rows);
  }
  std::vector<schema::ChunkRecord> records(static_cast<size_t>(rows));
  hdf5::Datatype memory_type = RowType(false);
  if (!memory_type) throw hdf5::StackError(ErrorCode::kInternal, what, location);
  if (!records.empty() && H5Dread(dataset.get(), memory_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                  records.data()) < 0) {
    throw hdf5::StackError(ErrorCode::kIo, what, location);
  }
  return records;
}

}  // namespace h5feed::format
