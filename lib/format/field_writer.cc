// FieldWriter, FieldChunkRows and CheckFields (field_writer.h).

#include "format/field_writer.h"

#include <algorithm>
#include <limits>
#include <set>
#include <utility>

#include "codec/checksum.h"
#include "field_row_check.h"
#include "format/checksum_attribute.h"
#include "format/chunk_index_dataset.h"
#include "format/mask_rows.h"
#include "format/require.h"
#include "format/schema.h"
#include "h5feed/error.h"
#include "h5feed/writer.h"
#include "hdf5/attributes.h"
#include "hdf5/direct_chunk.h"
#include "hdf5/error.h"
#include "hdf5/field_dataset.h"
#include "hdf5/integer_dataset.h"
#include "hdf5/lock.h"
#include "hdf5/new_file.h"
#include "hdf5/string_list_attribute.h"
#include "hdf5/untimed_creation.h"
#include "io/resource_limits.h"
#include "make_error.h"

namespace h5feed::format {
namespace {

// Disk reserved beyond a chunk's own bytes for what HDF5 allocates with it: a B-tree node of
// the chunk index, object header continuations (images_dataset.cc has the same margin).
constexpr uint64_t kFieldMetadataSlack = uint64_t{64} << 10;
// A variable-length value costs its bytes in a global heap collection plus a 16-byte object
// header and alignment, and a 16-byte descriptor in the chunk.
constexpr uint64_t kHeapBytesPerRow = 40;
// N while it is unknown: a flat file's chunk rows are then the target's.
constexpr int64_t kRowsUnknown = std::numeric_limits<int64_t>::max();
// A bytes or text field's rows are written once their values reach this, before their chunk
// fills: a chunk of them holds only the values' descriptors (docs/format.md, "Fields"), and 4096
// values of a megabyte each would otherwise wait in memory for it.
constexpr uint64_t kHeldValueBytes = uint64_t{8} << 20;

// Whether field `spec`'s rows pending are written before their chunk fills.
bool WrittenEarly(const FieldSpec& spec, const FieldColumn& pending) {
  return StoredKind(spec) != FieldKind::kArray && pending.data().size() >= kHeldValueBytes;
}

// An upper bound of the file bytes a chunk of `rows` of `column` adds.
uint64_t ChunkFileBytes(const FieldSpec& spec, const FieldColumn& column, int64_t chunk_rows) {
  if (StoredKind(spec) == FieldKind::kArray) {
    return io::limits::MaxStoredChunkBytes(static_cast<uint64_t>(chunk_rows) *
                                           static_cast<uint64_t>(spec.row_bytes())) +
           kFieldMetadataSlack;
  }
  return column.data().size() + kHeapBytesPerRow * static_cast<uint64_t>(chunk_rows) +
         kFieldMetadataSlack;
}

}  // namespace

int64_t FieldChunkRows(const FieldSpec& spec, int64_t chunk_images, int64_t rows) {
  if (chunk_images > 0) return chunk_images;
  int64_t target = schema::kFlatFieldChunkRows;
  if (StoredKind(spec) == FieldKind::kArray) {
    const int64_t row_bytes = spec.row_bytes();
    target = (schema::kFlatFieldChunkBytes + row_bytes / 2) / row_bytes;
  }
  return std::max<int64_t>(1, std::min(rows, target));
}

void CheckFields(std::span<const FieldSpec> fields, int64_t chunk_images) {
  Require(static_cast<int64_t>(fields.size()) <= schema::kMaxFields,
          "{} fields; a file holds at most {}", fields.size(), schema::kMaxFields);
  std::set<std::string> names;
  for (const FieldSpec& spec : fields) {
    CheckFieldSpec(spec);
    Require(names.insert(spec.name).second, "two fields are named \"{}\"; names must differ",
            spec.name);
    if (IsPerBox(spec.kind)) {
      const auto boxes = std::find_if(fields.begin(), fields.end(), [&](const FieldSpec& f) {
        return f.name == spec.boxes && f.kind == FieldKind::kBoxes;
      });
      Require(boxes != fields.end(),
              "field {} ({}) belongs to the boxes of field {}, which is not a boxes field of "
              "this file; list the boxes field too",
              spec.name, spec.Describe(), spec.boxes);
    }
    if (spec.kind == FieldKind::kBoxes) {
      // A loader's batch gives the boxes' counts under NAME_count (docs/python.md).
      const std::string counts = spec.name + "_count";
      Require(std::none_of(fields.begin(), fields.end(),
                           [&](const FieldSpec& f) { return f.name == counts; }),
              "field {} would hide the counts of boxes field {}, which a loader's batch gives "
              "under that name; name it otherwise",
              counts, spec.name);
    }
    if (spec.kind == FieldKind::kMask) {
      Require(spec.shape.empty() == (chunk_images <= 0),
              "mask field {} is {}: in a file of one image size a mask's shape is the images' "
              "{{height, width}}; in a file of images at their own size it has none (each row is "
              "its image's size)",
              spec.name, spec.Describe());
    }
    if (StoredKind(spec) != FieldKind::kArray || chunk_images <= 0) continue;
    Require(spec.row_bytes() <= kMaxChunkBytes / chunk_images,
            "field {} ({}) in chunks of {} rows (the images per chunk) makes chunks of 4 GiB or "
            "more, which HDF5 cannot store; use fewer images per chunk",
            spec.name, spec.Describe(), chunk_images);
  }
}

FieldWriter::FieldWriter(std::vector<FieldSpec> fields, int64_t chunk_images,
                         Compression compression, std::string path, std::string temporary_path,
                         BoxCoordinates box_coordinates)
    : specs_(std::move(fields)),
      state_(specs_.size()),
      chunk_images_(chunk_images),
      compression_(compression),
      box_coordinates_(box_coordinates),
      path_(std::move(path)),
      temporary_path_(std::move(temporary_path)) {}

void FieldWriter::Append(std::span<const FieldColumn> columns, hid_t file,
                         const ReserveFunction& reserve, const ImageSizeFunction& image_size) {
  Require(columns.size() == specs_.size(),
          "AppendFields for {} got {} columns for its {} fields; give one per field, in the "
          "order of WriterOptions::fields",
          path_, columns.size(), specs_.size());
  if (columns.empty()) return;
  const int64_t rows = columns[0].rows();
  for (size_t f = 0; f < columns.size(); ++f) {
    Require(columns[f].rows() == rows,
            "AppendFields for {}: field {} got {} rows and field {} {}; give every field the "
            "same rows",
            path_, specs_[f].name, columns[f].rows(), specs_[0].name, rows);
    CheckFieldColumn(specs_[f], columns[f], rows_, ErrorCode::kInvalidArgument, path_);
  }
  CheckPerBoxValueCounts(specs_, columns, rows_, ErrorCode::kInvalidArgument, path_);
  std::vector<BoxesAhead> ahead;
  for (size_t f = 0; f < columns.size(); ++f) {
    if (specs_[f].kind == FieldKind::kBoxes && box_coordinates_ == BoxCoordinates::kChecked) {
      CheckPixelBoxes(f, columns[f], image_size, ahead);
    }
  }
  boxes_ahead_.insert(boxes_ahead_.end(), ahead.begin(), ahead.end());
  // Chunks are written in the order appending one row at a time would write them (by the row
  // that fills them, or that brings a bytes or text field's values to kHeldValueBytes, then by
  // field), so the file is the same however the rows are split into calls: each pass takes the
  // rows up to the next such row.
  for (int64_t first = 0; first < rows;) {
    int64_t end = rows;
    for (size_t f = 0; f < columns.size(); ++f) {
      end = std::min(end, first + ChunkRowsOf(f) - RowsIntoChunk(f));
      if (StoredKind(specs_[f]) == FieldKind::kArray) continue;
      uint64_t held = state_[f].pending.data().size();
      for (int64_t r = first; r < end; ++r) {
        held += columns[f].row(r).size();
        if (held >= kHeldValueBytes) end = r + 1;
      }
    }
    for (size_t f = 0; f < columns.size(); ++f) {
      Field& field = state_[f];
      for (int64_t r = first; r < end; ++r) {
        const std::span<const uint8_t> value = columns[f].row(r);
        field.checksums.push_back(codec::RowChecksum(value));
        if (CompressesRows(specs_[f])) {
          CompressMaskRow(value, compression_, frame_);
          field.pending.Append(frame_);
        } else {
          field.pending.Append(value);
        }
      }
    }
    for (size_t f = 0; f < columns.size(); ++f) {
      if (RowsIntoChunk(f) == ChunkRowsOf(f) || WrittenEarly(specs_[f], state_[f].pending)) {
        Write(f, file, ChunkRowsOf(f), reserve);
      }
    }
    first = end;
  }
  rows_ += rows;
}

void FieldWriter::CheckPixelBoxes(size_t f, const FieldColumn& column,
                                  const ImageSizeFunction& image_size,
                                  std::vector<BoxesAhead>& ahead) const {
  for (int64_t r = 0; r < column.rows(); ++r) {
    const std::optional<UnitBoxes> unit = FindUnitBoxes(column.row(r));
    if (!unit) continue;
    const auto size = image_size(rows_ + r);
    if (!size) {
      ahead.push_back({rows_ + r, f, *unit});
      continue;
    }
    const std::string problem = NormalizedBoxesProblem(*unit, size->first, size->second);
    Require(problem.empty(), "row {} of field {} ({}) in {} {}", rows_ + r, specs_[f].name,
            specs_[f].Describe(), path_, problem);
  }
}

void FieldWriter::CheckBoxesAhead(int64_t first_row, std::span<const StoredImage> images) {
  // Those of rows before `first_row` were checked when their images came.
  std::erase_if(boxes_ahead_, [&](const BoxesAhead& held) { return held.row < first_row; });
  for (const BoxesAhead& held : boxes_ahead_) {
    const int64_t image = held.row - first_row;
    if (image >= static_cast<int64_t>(images.size())) continue;
    const StoredImage& stored = images[static_cast<size_t>(image)];
    const std::string problem = NormalizedBoxesProblem(held.unit, stored.height, stored.width);
    Require(problem.empty(), "row {} of field {} ({}) in {}, appended ahead of its image, {}",
            held.row, specs_[held.field].name, specs_[held.field].Describe(), path_, problem);
  }
}

int64_t FieldWriter::ChunkRowsOf(size_t f) const {
  return state_[f].chunk_rows > 0 ? state_[f].chunk_rows
                                  : FieldChunkRows(specs_[f], chunk_images_, kRowsUnknown);
}

int64_t FieldWriter::RowsIntoChunk(size_t f) const {
  return state_[f].written % ChunkRowsOf(f) + state_[f].pending.rows();
}

void FieldWriter::Write(size_t f, hid_t file, int64_t chunk_rows, const ReserveFunction& reserve) {
  const FieldSpec& spec = specs_[f];
  Field& field = state_[f];
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  if (!field.dataset) {
    reserve(kFieldMetadataSlack, "creating dataset /" + spec.name);
    const Compression compression =
        spec.kind == FieldKind::kMask ? MaskCompression(compression_) : compression_;
    field.dataset = hdf5::CreateFieldDataset(file, spec, chunk_rows, compression, temporary_path_);
    hdf5::WriteAttribute(field.dataset.get(), schema::kAttrField,
                         std::string_view(ToString(spec.kind)));
    if (spec.kind == FieldKind::kMask) {
      hdf5::WriteAttribute(field.dataset.get(), schema::kAttrMaskType,
                           std::string_view(ToString(spec.type)));
    }
    if (CompressesRows(spec)) {
      hdf5::WriteAttribute(field.dataset.get(), schema::kAttrMaskEncoding,
                           std::string_view(schema::kMaskEncodingZstd));
    }
    if (IsPerBox(spec.kind)) {
      hdf5::WriteAttribute(field.dataset.get(), schema::kAttrBoxes, std::string_view(spec.boxes));
    }
    if (spec.kind == FieldKind::kBoxValues) {
      hdf5::WriteAttribute(field.dataset.get(), schema::kAttrBoxValueType,
                           std::string_view(ToString(spec.type)));
    }
    field.chunk_rows = chunk_rows;
  }
  reserve(ChunkFileBytes(spec, field.pending, chunk_rows), "writing rows of field " + spec.name);
  const uint64_t end_before = hdf5::AllocatedEnd(file, temporary_path_);
  hdf5::WriteFieldRows(field.dataset.get(), spec, field.written, field.pending, temporary_path_);
  if (spec.kind == FieldKind::kArray) {
    field.chunks.push_back(RecordChunk(f, field.written, chunk_rows, end_before));
  }
  field.written += field.pending.rows();
  field.pending.Clear();
}

void FieldWriter::Finish(hid_t file, int64_t images, const ReserveFunction& reserve) {
  if (specs_.empty()) return;
  for (size_t f = 0; f < specs_.size(); ++f) {
    Field& field = state_[f];
    if (!field.dataset || field.pending.rows() > 0) {
      const int64_t chunk_rows = field.chunk_rows > 0
                                     ? field.chunk_rows
                                     : FieldChunkRows(specs_[f], chunk_images_, images);
      Write(f, file, chunk_rows, reserve);
    }
  }
  WriteChunkTables(file, reserve);
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  reserve(specs_.size() * (8 * static_cast<uint64_t>(images) + kFieldMetadataSlack),
          "writing the fields' checksums");
  const hdf5::Group group = hdf5::CreateUntimedGroup(file, schema::kFieldChecksums);
  std::vector<std::string> names;
  for (size_t f = 0; f < specs_.size(); ++f) {
    const hdf5::Dataset checksums = hdf5::WriteIntegerDataset<uint64_t>(
        group.get(), specs_[f].name.c_str(), state_[f].checksums);
    WriteChecksumAttribute(checksums.get());
    names.push_back(specs_[f].name);
  }
  hdf5::WriteStringListAttribute(file, schema::kAttrFields, names);
  Close();
}

schema::ChunkRecord FieldWriter::RecordChunk(size_t f, int64_t first, int64_t chunk_rows,
                                             uint64_t end_before) const {
  const FieldSpec& spec = specs_[f];
  const Field& field = state_[f];
  const std::string where = fmt::format("chunk {} of field {}", field.chunks.size(), spec.name);
  const uint64_t offset[1] = {static_cast<uint64_t>(first)};
  // As for /images, without walking HDF5's chunk index; HDF5 applied the filters, so the stored
  // bytes are read back through it.
  hdf5::ChunkPlace place;
  if (!hdf5::LocateNewChunk(field.dataset.get(), offset, end_before, {}, place)) {
    throw hdf5::StackError(ErrorCode::kIo, "locating " + where, temporary_path_);
  }
  if (!place.stored || place.filter_mask != 0) {
    throw MakeError(ErrorCode::kInternal,
                    "{} in {} was not stored whole (filter mask {}); please report this", where,
                    temporary_path_, place.filter_mask);
  }
  // HDF5 pads a short last chunk with zeros (no fill value is set) and stores it whole.
  std::span<const uint8_t> rows = field.pending.data();
  std::vector<uint8_t> padded;
  const auto chunk_bytes = static_cast<size_t>(chunk_rows * spec.row_bytes());
  if (rows.size() != chunk_bytes) {
    padded.assign(chunk_bytes, 0);
    std::copy_n(rows.begin(), std::min(rows.size(), chunk_bytes), padded.begin());
    rows = padded;
  }
  return schema::ChunkRecord{place.address, place.stored_bytes, place.filter_mask,
                             codec::ChunkChecksum(rows)};
}

void FieldWriter::WriteChunkTables(hid_t file, const ReserveFunction& reserve) const {
  uint64_t rows = 0;
  for (const Field& field : state_) rows += field.chunks.size();
  if (rows == 0) return;
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  reserve(rows * sizeof(schema::ChunkRecord) + specs_.size() * kFieldMetadataSlack,
          "writing the fields' chunk tables");
  const hdf5::Group group = hdf5::CreateUntimedGroup(file, schema::kFieldChunkIndex);
  for (size_t f = 0; f < specs_.size(); ++f) {
    if (state_[f].chunks.empty()) continue;
    WriteChunkIndex(file, state_[f].chunks,
                    std::string(schema::kFieldChunkIndex) + "/" + specs_[f].name);
  }
}

void FieldWriter::Close() noexcept {
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  for (Field& field : state_) field.dataset.reset();
}

}  // namespace h5feed::format
