// ReadFieldColumn (field_values.h).

#include "index/field_values.h"

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

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

// The rows of one read. An array's: whole chunks of the dataset (`chunk_rows`, 0 when not
// chunked). A bytes or text field's: as many rows of `largest` bytes (the longest row, as read
// or decompressed) as make the block's bytes, so that neither HDF5's values of one read nor a
// block kept alone (CheckFieldColumn) grow with the field; its chunks hold only descriptors,
// which a read of part of a chunk costs nothing to decode.
int64_t BlockRows(const FieldSpec& spec, int64_t chunk_rows, uint64_t largest) {
  if (StoredKind(spec) != FieldKind::kArray) {
    const uint64_t fit = kFieldBlockBytes / std::max<uint64_t>(largest, 1);
    return std::max<int64_t>(1, static_cast<int64_t>(std::min<uint64_t>(fit, kFieldBlockRows)));
  }
  int64_t rows = std::max<int64_t>(1, static_cast<int64_t>(kFieldBlockBytes) / spec.row_bytes());
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

// The bytes of every row of mask `spec` decompressed, and of the largest.
struct MaskBytes {
  uint64_t total = 0;
  uint64_t largest = 0;
};

MaskBytes DecompressedBytes(const DatasetIndex& index, const FieldSpec& spec) {
  MaskBytes bytes;
  for (int64_t row = 0; row < index.samples; ++row) {
    const uint64_t row_bytes = MaskRowBytes(index, spec, row);
    bytes.total += row_bytes;
    bytes.largest = std::max(bytes.largest, row_bytes);
  }
  return bytes;
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

namespace {

// What a column read whole may take: `max_bytes`, refused with `advice` beyond it.
struct ColumnLimit {
  uint64_t max_bytes = 0;
  std::string_view advice;
};

// Appends `bytes` zero bytes to `column` as one row: a damaged row's place.
void AppendZeroRow(uint64_t bytes, FieldColumn& column) {
  column.Append(std::vector<uint8_t>(static_cast<size_t>(bytes), 0));
}

// Reads rows [first, first + count) of `spec` into `into` one at a time, after their read
// together failed as damage: a row whose own read fails too gets why in `unreadable` (at its
// place in the block) and `stand_in_bytes` zero bytes in `into`.
void ReadRowByRow(hid_t dataset, const FieldSpec& spec, int64_t first, int64_t count,
                  const std::string& path, uint64_t stand_in_bytes, FieldColumn& into,
                  std::vector<std::string>& unreadable) {
  for (int64_t row = first; row < first + count; ++row) {
    try {
      hdf5::ReadFieldRows(dataset, spec, row, 1, into, path);
    } catch (const Error& error) {
      if (error.code() != ErrorCode::kCorrupt) throw;
      unreadable[static_cast<size_t>(row - first)] = error.what();
      AppendZeroRow(stand_in_bytes, into);
    }
  }
}

// Reads every row of field `name` and checks each. With `held`, into `column`, whole, within
// its limit; without, a block at a time into `column`, cleared before each: the block is all
// that is held. With `damaged`, a damaged row is recorded there and held as zeros (field_values.h).
void ReadCheckedRows(const DatasetIndex& index, const std::string& name, const ColumnLimit* held,
                     FieldColumn& column, std::vector<DamagedFieldRow>* damaged) {
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
    if (held) {
      RequireWithin(FieldColumnBytes(rows, value_bytes), held->max_bytes,
                    fmt::format("({} rows of {})", rows, spec.Describe()), where, held->advice);
    }
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
  uint64_t largest = 0;  // a bytes or text field's longest row, as read or decompressed
  if (StoredKind(spec) != FieldKind::kArray) {
    const hdf5::VariableLengthClaims claims =
        hdf5::ReadVariableLengthClaims(dataset.get(), rows, "field " + name, path);
    const MaskBytes masks = compressed ? DecompressedBytes(index, spec) : MaskBytes{};
    value_bytes = compressed ? masks.total : claims.total;
    largest = std::max(claims.largest, masks.largest);
    if (held) {
      RequireWithin(FieldColumnBytes(rows, value_bytes), held->max_bytes,
                    fmt::format("({} {} {})", rows, compressed ? "masks of" : "rows claiming",
                                ToString(ByteSize(std::min(value_bytes, kLargest)))),
                    where, held->advice);
    }
    if (claims.largest > static_cast<uint64_t>(kMaxFieldRowBytes)) {
      throw MakeError(ErrorCode::kCorrupt,
                      "row {} (chunk {}) of {} claims {} bytes, more than a row may hold ({}): "
                      "the file is damaged",
                      claims.largest_row, chunks.chunk_of(claims.largest_row), where,
                      claims.largest, kMaxFieldRowBytes);
    }
  }
  const std::vector<uint64_t> checksums = ReadFieldChecksums(file.get(), spec, rows, path);

  if (held) column.Reserve(static_cast<size_t>(rows), static_cast<size_t>(value_bytes));
  FieldColumn frames;  // compressed rows: a block's zstd frames
  const int64_t chunk_rows =
      entry.dataset.storage.chunk.empty() ? 0 : entry.dataset.storage.chunk[0];
  const int64_t block = BlockRows(spec, chunk_rows, largest);
  for (int64_t first = 0; first < rows; first += block) {
    const int64_t count = std::min(block, rows - first);
    const int64_t kept_from = held ? 0 : first;  // the row column.row(0) is
    if (!held) column.Clear();
    frames.Clear();
    // Per row of the block: why its read failed, when read alone; empty for a row read.
    std::vector<std::string> unreadable;
    try {
      hdf5::ReadFieldRows(dataset.get(), spec, first, count, compressed ? frames : column, path);
    } catch (const Error& error) {
      if (damaged == nullptr || error.code() != ErrorCode::kCorrupt) throw;
      unreadable.assign(static_cast<size_t>(count), std::string());
      // An unreadable array row stands in as zeros, a bytes or text row (or a mask's frame,
      // made zeros below) as empty.
      const uint64_t stand_in = !compressed && StoredKind(spec) == FieldKind::kArray
                                    ? static_cast<uint64_t>(spec.row_bytes())
                                    : 0;
      ReadRowByRow(dataset.get(), spec, first, count, path, stand_in, compressed ? frames : column,
                   unreadable);
    }
    for (int64_t row = first; row < first + count; ++row) {
      const int64_t at = row - kept_from;  // the row's place in `column`
      const int64_t chunk = chunks.chunk_of(row);
      const std::string* unread =
          unreadable.empty() ? nullptr : &unreadable[static_cast<size_t>(row - first)];
      if (unread != nullptr && !unread->empty()) {
        damaged->push_back({row, chunk,
                            fmt::format("row {} (chunk {}) of {}: {}: the file is damaged", row,
                                        chunk, where, *unread)});
        if (compressed) AppendZeroRow(MaskRowBytes(index, spec, row), column);
        continue;
      }
      try {
        if (compressed) DecompressRow(frames.row(row - first), index, spec, row, where, column);
        CheckFieldRow(column.row(at), checksums[static_cast<size_t>(row)], spec, row, chunk, where);
      } catch (const Error& error) {
        if (damaged == nullptr || error.code() != ErrorCode::kCorrupt) throw;
        damaged->push_back({row, chunk, error.what()});
        if (column.rows() == at) {
          AppendZeroRow(MaskRowBytes(index, spec, row), column);  // its frame did not decompress
        } else {
          column.ZeroRow(at);
        }
      }
    }
  }
}

}  // namespace

FieldColumn ReadFieldColumn(const DatasetIndex& index, const std::string& name, uint64_t max_bytes,
                            std::string_view advice, std::vector<DamagedFieldRow>* damaged) {
  const ColumnLimit limit{max_bytes, advice};
  FieldColumn column;
  ReadCheckedRows(index, name, &limit, column, damaged);
  return column;
}

void CheckFieldColumn(const DatasetIndex& index, const std::string& name) {
  FieldColumn block;
  ReadCheckedRows(index, name, nullptr, block, nullptr);
}

}  // namespace h5feed::index
