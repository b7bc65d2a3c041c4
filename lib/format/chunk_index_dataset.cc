#include "format/chunk_index_dataset.h"

#include <cstddef>
#include <string>
#include <vector>

#include "format/checksum_attribute.h"
#include "h5feed/error.h"
#include "hdf5/compound_type.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/error.h"
#include "hdf5/handle.h"
#include "hdf5/integer_dataset.h"
#include "hdf5/lock.h"
#include "hdf5/whole_dataset.h"
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
  std::vector<hdf5::CompoundMember> members;
  for (const Field& field : kFields) {
    const size_t bytes = field.is_32_bit ? 4 : 8;
    members.push_back(
        {field.name, on_disk ? field.file_offset : field.memory_offset,
         on_disk ? hdf5::StoredIntegerType(bytes, false) : hdf5::MemoryIntegerType(bytes, false)});
  }
  return hdf5::CompoundType(on_disk ? kPackedRowBytes : sizeof(schema::ChunkRecord), members);
}

}  // namespace

void WriteChunkIndex(hid_t location, std::span<const schema::ChunkRecord> records,
                     const std::string& table) {
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  const uint64_t rows[1] = {records.size()};
  const hdf5::Dataset dataset = hdf5::WriteWholeDataset(
      location, table.c_str(), RowType(true).get(), RowType(false).get(), rows, records.data());
  WriteChecksumAttribute(dataset.get());
}

std::vector<schema::ChunkRecord> ReadChunkIndex(hid_t location, int64_t max_rows,
                                                const std::string& table) {
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  const std::string where = hdf5::DatasetWhere(location, table);
  if (!hdf5::LinkExists(location, table)) {
    throw MakeError(ErrorCode::kNotFound, "{} does not exist", where);
  }
  const std::string name = "/" + table;
  const hdf5::Dataset dataset = hdf5::OpenDataset(location, name, hdf5::FileName(location));
  RequireKnownChecksum(dataset.get(), where);
  // Only the exact row type h5feed writes is converted by H5Dread: HDF5 1.10.8's compound
  // conversion reads freed memory for some damaged member layouts (found by fuzzing,
  // docs/fuzzing.md), and no h5feed file holds another type.
  const hdf5::CompoundMatch match = hdf5::MatchCompound(dataset.get(), RowType(true).get(), name);
  if (!match.is_compound) {
    throw MakeError(ErrorCode::kCorrupt, "{} is not a compound dataset", where);
  }
  if (!match.missing_member.empty()) {
    throw MakeError(ErrorCode::kCorrupt, "{} has no field \"{}\"", where, match.missing_member);
  }
  if (!match.equal) {
    throw MakeError(
        ErrorCode::kCorrupt,
        "{} does not have the row type h5feed writes: the file is damaged; convert it again",
        where);
  }
  const int64_t rows = hdf5::ElementCount(dataset.get(), name);
  if (rows > max_rows) {
    throw MakeError(
        ErrorCode::kCorrupt,
        "{} has {} rows where at most {} chunks exist: the file is damaged; convert it again",
        where, rows, max_rows);
  }
  std::vector<schema::ChunkRecord> records(static_cast<size_t>(rows));
  if (!records.empty()) {
    hdf5::ReadWholeDataset(dataset.get(), RowType(false).get(), records.data(), name);
  }
  return records;
}

}  // namespace h5feed::format
