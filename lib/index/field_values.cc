// ReadFieldColumn (field_values.h).

#include "index/field_values.h"

#include <algorithm>
#include <limits>
#include <string_view>
#include <vector>

#include "byte_size.h"
#include "codec/checksum.h"
#include "field_row_check.h"
#include "format/mask_rows.h"
#include "format/schema.h"
#include "h5feed/error.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/error.h"
#include "hdf5/field_read.h"
#include "hdf5/lock.h"
#include "hdf5/open_hdf5_file.h"
#include "hdf5/variable_length_claims.h"
#include "hdf5/zstd_filter.h"
#include "index/field_specs.h"
#include "io/resource_limits.h"
#include "make_error.h"

namespace h5feed::index {
namespace {

// Rows are read a block at a time, a whole number of the dataset's chunks (each chunk is then
// read and decompressed once) of about this many bytes, or this many variable-length rows.
constexpr uint64_t kFieldBlockBytes = uint64_t{4} << 20;
constexpr int64_t kFieldBlockRows = 4096;
// ByteSize shows sizes up to this.
constexpr uint64_t kLargest = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

const FieldSpec* FindField(const DatasetIndex& index, const std::string& name) {
  for (const FieldSpec& spec : index.fields) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

std::string FieldNames(const DatasetIndex& index) {
  std::string names;
  for (const FieldSpec& spec : index.fields) {
    names += (names.empty() ? "" : ", ") + spec.name + " (" + spec.Describe() + ")";
  }
  return names.empty() ? "it has none" : "its fields: " + names;
}

// The rows of one read: whole chunks of the dataset (`chunk_rows`, 0 when not chunked).
int64_t BlockRows(const FieldSpec& spec, int64_t chunk_rows) {
  int64_t rows = kFieldBlockRows;
  if (StoredKind(spec) == FieldKind::kArray) {
    rows = std::max<int64_t>(1, static_cast<int64_t>(kFieldBlockBytes) / spec.row_bytes());
  }
  if (chunk_rows > 0) rows = std::max<int64_t>(1, rows / chunk_rows) * chunk_rows;
  return rows;
}

// Refuses a column of `column_bytes` (what `what` says of it) beyond the machine's memory (no
// file that holds it can be read whole: damage) or the caller's `max_bytes`.
void RequireWithin(uint64_t column_bytes, uint64_t max_bytes, const std::string& what,
                   const std::string& where, std::string_view advice) {
  const uint64_t memory = io::limits::PhysicalMemoryBytes();
  if (column_bytes > memory) {
    throw MakeError(ErrorCode::kCorrupt,
                    "{} {} would take {} in memory, more than this machine has ({}): the file is "
                    "damaged",
                    where, what, ByteSize(std::min(column_bytes, kLargest)), ByteSize(memory));
  }
  if (column_bytes <= max_bytes) return;
  throw MakeError(ErrorCode::kInvalidArgument,
                  "{} {} would take {} in memory, more than the {} allowed; {}", where, what,
                  ByteSize(std::min(column_bytes, kLargest)),
                  ByteSize(std::min(max_bytes, kLargest)), advice);
}

// Whether the rows of `spec` are zstd frames (format/mask_rows.h), as `entry` says.
bool RowsCompressed(const hdf5::FieldDatasetEntry& entry, const FieldSpec& spec,
                    const std::string& where) {
  if (entry.mask_encoding.empty()) return false;
  if (entry.mask_encoding != format::schema::kMaskEncodingZstd || !format::CompressesRows(spec)) {
    throw MakeError(ErrorCode::kCorrupt,
                    "{} ({}) has attribute {} = \"{}\"; only a mask of images at their own size "
                    "has one, \"{}\": the file is damaged, or written by a later h5feed",
                    where, spec.Describe(), format::schema::kAttrMaskEncoding, entry.mask_encoding,
                    format::schema::kMaskEncodingZstd);
  }
  return true;
}

// The bytes of the values of row `row` of mask `spec`: its image's height x width x the
// element's bytes.
uint64_t MaskRowBytes(const DatasetIndex& index, const FieldSpec& spec, int64_t row) {
  const ImageShape shape = index.rows.at(row).shape;
  return static_cast<uint64_t>(shape.height) * static_cast<uint64_t>(shape.width) *
         static_cast<uint64_t>(ElementBytes(spec.type));
}

uint64_t DecompressedBytes(const DatasetIndex& index, const FieldSpec& spec) {
  uint64_t total = 0;
  for (int64_t row = 0; row < index.samples; ++row) total += MaskRowBytes(index, spec, row);
  return total;
}

void DecompressRow(std::span<const uint8_t> frame, const DatasetIndex& index, const FieldSpec& spec,
                   int64_t row, const std::string& where, FieldColumn& column) {
  try {
    format::AppendDecompressedMaskRow(frame, MaskRowBytes(index, spec, row), column);
  } catch (const Error& error) {
    throw MakeError(ErrorCode::kCorrupt, "row {} (chunk {}) of {}: {}: the file is damaged", row,
                    index.chunk_rows().chunk_of(row), where, error.what());
  }
}

}  // namespace

void CheckFieldRow(std::span<const uint8_t> value, uint64_t stored, const FieldSpec& spec,
                   int64_t row, int64_t chunk, const std::string& where) {
  const uint64_t computed = codec::RowChecksum(value);
  if (computed != stored) {
    throw MakeError(ErrorCode::kCorrupt,
                    "row {} (chunk {}) of {}: checksum mismatch (stored {:#018x}, computed "
                    "{:#018x}): the file is damaged; copy or convert it again",
                    row, chunk, where, stored, computed);
  }
  const std::string problem = FieldRowProblem(spec, value);
  if (!problem.empty()) {
    throw MakeError(ErrorCode::kCorrupt, "row {} (chunk {}) of {} {}: the file is damaged", row,
                    chunk, where, problem);
  }
}

uint64_t FieldColumnBytes(int64_t rows, uint64_t value_bytes) {
  const uint64_t ends = 8 * static_cast<uint64_t>(rows);
  return value_bytes > std::numeric_limits<uint64_t>::max() - ends
             ? std::numeric_limits<uint64_t>::max()
             : value_bytes + ends;
}

FieldColumn ReadFieldColumn(const DatasetIndex& index, const std::string& name, uint64_t max_bytes,
                            std::string_view advice) {
  const FieldSpec* found = FindField(index, name);
  if (found == nullptr) {
    throw MakeError(ErrorCode::kNotFound, "no field {} in {}; {}", name, index.path,
                    FieldNames(index));
  }
  const FieldSpec& spec = *found;
  const std::string& path = index.path;
  const std::string where = "field " + name + " in " + path;
  const int64_t rows = index.samples;
  uint64_t value_bytes = 0;
  if (StoredKind(spec) == FieldKind::kArray) {
    const uint64_t row_bytes = static_cast<uint64_t>(spec.row_bytes());
    value_bytes = row_bytes > std::numeric_limits<uint64_t>::max() / std::max<uint64_t>(rows, 1)
                      ? std::numeric_limits<uint64_t>::max()
                      : row_bytes * static_cast<uint64_t>(rows);
    RequireWithin(FieldColumnBytes(rows, value_bytes), max_bytes,
                  "(" + std::to_string(rows) + " rows of " + spec.Describe() + ")", where, advice);
  }

  // Before the file is opened: HDF5 looks filters up when a dataset is opened.
  hdf5::RegisterZstdFilter();
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  const hdf5::File file = std::move(hdf5::OpenHdf5File(index.location, index.file_locking).file);
  const hdf5::FieldDatasetEntry entry = DescribeFieldAsOpened(file.get(), spec, rows, path);
  const hdf5::Dataset dataset = hdf5::OpenDataset(file.get(), name, path);
  const ChunkRows& chunks = index.chunk_rows();
  const bool compressed = RowsCompressed(entry, spec, where);
  if (StoredKind(spec) != FieldKind::kArray) {
    const hdf5::VariableLengthClaims claims =
        hdf5::ReadVariableLengthClaims(dataset.get(), rows, "field " + name, path);
    value_bytes = compressed ? DecompressedBytes(index, spec) : claims.total;
    RequireWithin(FieldColumnBytes(rows, value_bytes), max_bytes,
                  "(" + std::to_string(rows) + (compressed ? " masks of " : " rows claiming ") +
                      ToString(ByteSize(std::min(value_bytes, kLargest))) + ")",
                  where, advice);
    if (claims.largest > static_cast<uint64_t>(kMaxFieldRowBytes)) {
      throw MakeError(ErrorCode::kCorrupt,
                      "row {} (chunk {}) of {} claims {} bytes, more than a row may hold ({}): "
                      "the file is damaged",
                      claims.largest_row, chunks.chunk_of(claims.largest_row), where,
                      claims.largest, kMaxFieldRowBytes);
    }
  }
  const std::vector<uint64_t> checksums = ReadFieldChecksums(file.get(), spec, rows, path);

  FieldColumn column;
  column.Reserve(static_cast<size_t>(rows), static_cast<size_t>(value_bytes));
  FieldColumn frames;  // compressed rows: a block's zstd frames
  const int64_t chunk_rows =
      entry.dataset.storage.chunk.empty() ? 0 : entry.dataset.storage.chunk[0];
  const int64_t block = BlockRows(spec, chunk_rows);
  for (int64_t first = 0; first < rows; first += block) {
    const int64_t count = std::min(block, rows - first);
    frames.Clear();
    hdf5::ReadFieldRows(dataset.get(), spec, first, count, compressed ? frames : column, path);
    for (int64_t row = first; row < first + count; ++row) {
      if (compressed) DecompressRow(frames.row(row - first), index, spec, row, where, column);
      CheckFieldRow(column.row(row), checksums[static_cast<size_t>(row)], spec, row,
                    chunks.chunk_of(row), where);
    }
  }
  return column;
}

}  // namespace h5feed::index
