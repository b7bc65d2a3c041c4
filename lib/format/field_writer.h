#pragma once
// The fields of a file being written (docs/format.md, "Fields"): each field's rows gathered
// into one HDF5 chunk at a time and written whole as it fills (the last one, short, at
// Finish), each row checksummed as it comes, and where each array field's chunk went recorded;
// at Finish, /field_checksums, the arrays' chunk tables (/field_chunk_index) and the root
// attribute `fields`. Memory: at most one chunk of rows per field (of a bytes or text field,
// fewer when their values reach 8 MiB: those are written then, into their chunk as it fills),
// and 8 bytes a row per field for the checksums (as the images' own).
//
// Owned by the Writer's state and used by its one thread; it takes hdf5::Lock() for its HDF5
// calls. A field's dataset is created when its first chunk is written: a flat file's chunk
// rows depend on N when a field has fewer rows than a chunk.

#include <hdf5.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "format/schema.h"
#include "h5feed/compression.h"
#include "h5feed/field.h"
#include "h5feed/writer.h"
#include "hdf5/handle.h"
#include "normalized_boxes.h"

namespace h5feed::format {

// The rows of one HDF5 chunk of a field (docs/format.md, "Fields"): in a version 1 file
// (`chunk_images` K > 0), K, so that chunk c holds the rows of image chunk c; in a flat file
// (`chunk_images` 0), max(1, min(rows, round(1 MiB / row_bytes))) for an array and
// min(rows, 4096) for bytes and text (at least 1). `rows` is N, or larger while unknown.
int64_t FieldChunkRows(const FieldSpec& spec, int64_t chunk_images, int64_t rows);

// Throws Error(kInvalidArgument) for what a Writer cannot write: a spec CheckFieldSpec
// refuses, two fields of one name, more than schema::kMaxFields, or (with `chunk_images` K > 0)
// an array whose chunk of K rows reaches HDF5's 4 GiB limit.
void CheckFields(std::span<const FieldSpec> fields, int64_t chunk_images);

// Makes sure `bytes` more than HDF5 has allocated in the file can be written (the Writer's
// disk reservation, io/disk_reservation.h), naming `what` when they cannot.
using ReserveFunction = std::function<void(uint64_t bytes, std::string_view what)>;

// The height and width of the image of the file's row `row`, or nullopt while it is not known
// (its image not appended yet: a flat file's fields may come ahead of their images).
using ImageSizeFunction = std::function<std::optional<std::pair<int64_t, int64_t>>(int64_t row)>;

class FieldWriter {
 public:
  FieldWriter() = default;
  // `fields` passed CheckFields. Messages about the caller's values name `path` (the output);
  // those about HDF5's writes, `temporary_path`. Boxes are checked for normalized ones only
  // when `box_coordinates` is kChecked.
  FieldWriter(std::vector<FieldSpec> fields, int64_t chunk_images, Compression compression,
              std::string path, std::string temporary_path, BoxCoordinates box_coordinates);

  const std::vector<FieldSpec>& fields() const { return specs_; }
  int64_t rows() const { return rows_; }  // every field's rows so far (0 without fields)

  // Writer::AppendFields: checks every column first (one per field, in order, as many rows
  // each, each row a valid value, box labels one per box, boxes not normalized to 0-1 on an
  // image `image_size` knows (normalized_boxes.h; unless kPixels): Error(kInvalidArgument) naming
  // the field and the row counted from the file's first), so a refused call changes nothing; then
  // checksums the rows and writes each chunk that fills into `file`. Throws Error (kIo, kNoSpace)
  // when a write fails.
  void Append(std::span<const FieldColumn> columns, hid_t file, const ReserveFunction& reserve,
              const ImageSizeFunction& image_size);

  // Writer::Append of a flat file's images `images`, from the file's row `first_row`:
  // Error(kInvalidArgument) for boxes appended ahead of their image (Append could not check
  // them) that are normalized to 0-1 on it (normalized_boxes.h), naming the field and the row.
  void CheckBoxesAhead(int64_t first_row, std::span<const StoredImage> images);

  // Writes every field's last chunk (creating the datasets of fields with fewer rows than a
  // chunk), /field_checksums, /field_chunk_index and the `fields` attribute, and closes the
  // datasets. rows() is `images` (the caller checked). Nothing at all without fields.
  void Finish(hid_t file, int64_t images, const ReserveFunction& reserve);

  // Closes the datasets (a Writer abandoned: its file closes only when they are).
  void Close() noexcept;

 private:
  struct Field {
    int64_t chunk_rows = 0;           // 0 until the dataset is created (flat files)
    int64_t written = 0;              // rows in the dataset
    FieldColumn pending;              // rows not yet written: fewer than chunk_rows
    std::vector<uint64_t> checksums;  // one per row given
    // An array's chunks as written (one per chunk), for its chunk table; empty for the others.
    std::vector<schema::ChunkRecord> chunks;
    hdf5::Dataset dataset;
  };

  // A boxes row within 0 to 1 appended ahead of its image, checked when that comes.
  struct BoxesAhead {
    int64_t row = 0;
    size_t field = 0;
    UnitBoxes unit;
  };
  // Throws Error(kInvalidArgument) for the first row of boxes field f's `column` (the rows
  // from rows_) normalized to 0-1 on its image, when `image_size` knows it; adds to `ahead`
  // those within 0 to 1 whose image it does not know.
  void CheckPixelBoxes(size_t f, const FieldColumn& column, const ImageSizeFunction& image_size,
                       std::vector<BoxesAhead>& ahead) const;
  // Field f's rows per chunk: its dataset's, or what they will be while N is unknown.
  int64_t ChunkRowsOf(size_t f) const;
  // Field f's rows in its chunk being filled: written early (a bytes or text field's values
  // past kHeldValueBytes) and pending.
  int64_t RowsIntoChunk(size_t f) const;
  void Write(size_t f, hid_t file, int64_t chunk_rows, const ReserveFunction& reserve);
  // Where field f's chunk of `chunk_rows` rows from row `first`, its `pending` rows just
  // written since the file's allocated end was `end_before`, lies in the file, and its checksum
  // (zero padding included, as HDF5 stores it).
  schema::ChunkRecord RecordChunk(size_t f, int64_t first, int64_t chunk_rows,
                                  uint64_t end_before) const;
  void WriteChunkTables(hid_t file, const ReserveFunction& reserve) const;

  std::vector<FieldSpec> specs_;
  std::vector<Field> state_;
  int64_t chunk_images_ = 0;
  Compression compression_;
  BoxCoordinates box_coordinates_ = BoxCoordinates::kChecked;
  std::string path_;
  std::string temporary_path_;
  int64_t rows_ = 0;
  std::vector<uint8_t> frame_;           // a compressed mask row (mask_rows.h), reused
  std::vector<BoxesAhead> boxes_ahead_;  // rarely any: only boxes that look normalized
};

}  // namespace h5feed::format
