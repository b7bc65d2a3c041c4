#include "format/row_checksums_dataset.h"

#include <string>

#include "format/checksum_attribute.h"
#include "format/schema.h"
#include "h5feed/error.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/error.h"
#include "hdf5/handle.h"
#include "hdf5/integer_dataset.h"
#include "hdf5/lock.h"
#include "make_error.h"

namespace h5feed::format {

void WriteRowChecksums(hid_t location, std::span<const uint64_t> checksums) {
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  const hdf5::Dataset dataset =
      hdf5::WriteIntegerDataset<uint64_t>(location, schema::kRowChecksums, checksums);
  WriteChecksumAttribute(dataset.get());
}

std::optional<std::vector<uint64_t>> ReadRowChecksums(hid_t location, int64_t rows) {
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  if (!hdf5::LinkExists(location, schema::kRowChecksums)) return std::nullopt;
  const std::string name = std::string("/") + schema::kRowChecksums;
  const hdf5::Dataset dataset = hdf5::OpenDataset(location, name, hdf5::FileName(location));
  const std::string where = hdf5::DatasetWhere(location, schema::kRowChecksums);
  RequireKnownChecksum(dataset.get(), where);
  const int64_t shape[1] = {rows};
  std::optional<std::vector<uint64_t>> checksums =
      hdf5::ReadIntegers<uint64_t>(dataset.get(), shape, name);
  if (!checksums) {
    throw MakeError(
        ErrorCode::kCorrupt,
        "{} is not {} unsigned 64-bit checksums, one per image: the file is damaged; convert it "
        "again",
        where, rows);
  }
  return checksums;
}

}  // namespace h5feed::format
