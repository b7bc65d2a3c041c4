#pragma once
// Fields: named values a file holds for each row beside its image and label (docs/format.md,
// "Fields"): multi-label targets, attributes, regression targets, landmarks, embeddings
// (arrays of a fixed shape), captions, ids and JSON records (bytes or text of any length),
// and the geometric kinds that follow the image through every crop, resize and flip
// (docs/augment.md): segmentation masks and bounding boxes with their classes.
// A FieldSpec says what a field is; a FieldColumn holds its values of consecutive rows, the one
// form in which they travel from a source through a conversion into the Writer, and out of a
// file into a loader's batches.
//
// Value types: copy them, compare them, hand them between threads like a std::vector.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace h5feed {

enum class FieldKind {
  kArray,  // every row an array of one shape and element type
  kBytes,  // every row bytes of its own length
  kText,   // every row UTF-8 text of its own length
  // A segmentation map of the image's stored height x width, uint8 or uint16 (`type`): in a
  // file of one image size `shape` is {H, W} and rows are stored as an array's; in a file of
  // images at their own size `shape` is empty and row n holds H_n x W_n values.
  kMask,
  // K boxes per row (K of its own), K x 4 float32 xyxy in the stored image's pixels.
  kBoxes,
  // One int64 class per box of the boxes field named `boxes`, row for row.
  kBoxLabels,
  // One value of `type` per box of the boxes field named `boxes`, row for row (COCO's iscrowd
  // and area, VOC's difficult, track ids): carried with their boxes as box labels are, never
  // transformed. Box labels are the per-box values a loader names classes.
  kBoxValues,
};

// An array's element type, numpy's names ("bool", "int8", ... "float64"). Stored little-endian.
enum class FieldType {
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUint8,
  kUint16,
  kUint32,
  kUint64,
  kFloat16,
  kFloat32,
  kFloat64,
};

// "array", "bytes", "text", "mask", "boxes", "box_labels", "box_values".
std::string_view ToString(FieldKind kind) noexcept;
FieldKind ParseFieldKind(std::string_view text);  // throws Error(kInvalidArgument)
// "bool", "int8", ..., "float64" (numpy's dtype names).
std::string_view ToString(FieldType type) noexcept;
FieldType ParseFieldType(std::string_view text);  // throws Error(kInvalidArgument)
// Bytes of one element: 1 for bool.
size_t ElementBytes(FieldType type) noexcept;

struct FieldSpec {
  std::string name;
  FieldKind kind = FieldKind::kArray;
  FieldType type = FieldType::kUint8;  // arrays only
  std::vector<int64_t> shape;          // arrays only: one row's shape; empty for a scalar
                                       // (masks: {H, W} in a file of one image size)
  std::string boxes;                   // box labels and values only: the boxes field they belong to

  // Rows of one length (arrays, masks of a file of one image size): the bytes of one row (the
  // product of `shape` x ElementBytes); 0 otherwise.
  int64_t row_bytes() const;
  // "uint8[40]", "float32[5,2]", "int64" (a scalar), "bytes", "text", "mask uint8[32,32]",
  // "mask uint16", "boxes", "box_labels of boxes", "box_values int32 of boxes": how messages,
  // inspect and the command line
  // show a field's kind, type and shape.
  std::string Describe() const;

  friend bool operator==(const FieldSpec&, const FieldSpec&) = default;
};

// How a field's rows are stored (docs/format.md, "Fields"): kArray for rows of one length
// (arrays; masks with a shape), kBytes for rows of their own length (masks without a shape,
// whose element type an attribute names; boxes; box labels), kText for text.
FieldKind StoredKind(const FieldSpec& spec) noexcept;
// Masks, boxes, box labels and box values: the kinds a loader moves with the image's geometry.
bool IsGeometric(FieldKind kind) noexcept;
// Box labels and box values: one value per box of the boxes field they name (FieldSpec::boxes),
// kept, dropped and padded with those boxes.
bool IsPerBox(FieldKind kind) noexcept;
// The bytes of one box's value of a per-box field (8 for box labels), of one box (16) of a
// boxes field; 0 for the other kinds.
size_t BoxValueBytes(const FieldSpec& spec) noexcept;

// Throws Error(kInvalidArgument) naming `spec` and what is wrong: a name that is empty, holds
// '/' or a control character, or is reserved (ReservedFieldNames); an array dimension below 1,
// or a row over 2 GiB; a mask not uint8 or uint16 or with a shape of other than 2 dimensions;
// boxes not float32, box labels not int64, box values with a shape, either naming no boxes
// field.
void CheckFieldSpec(const FieldSpec& spec);

// The names no field may take: the file's own datasets ("images", "labels", "classes", ...) and
// the keys a loader's batch dict already has ("indices", ...), for messages.
std::span<const std::string_view> ReservedFieldNames();

// One field's values for a run of consecutive rows: each row's bytes one after another in
// `data`, row i in [begin(i), end(i)). An array's rows are row_bytes each (little-endian
// elements, row-major); bytes and text rows are as long as they are (text: UTF-8, no NUL).
class FieldColumn {
 public:
  FieldColumn() = default;

  int64_t rows() const { return static_cast<int64_t>(ends_.size()); }
  uint64_t begin(int64_t row) const { return row == 0 ? 0 : ends_[static_cast<size_t>(row) - 1]; }
  uint64_t end(int64_t row) const { return ends_[static_cast<size_t>(row)]; }
  std::span<const uint8_t> row(int64_t i) const {
    return std::span<const uint8_t>(data_).subspan(begin(i), end(i) - begin(i));
  }
  std::span<const uint8_t> data() const { return data_; }
  std::span<const uint64_t> ends() const { return ends_; }

  // Appends one row, or every row of `other`.
  void Append(std::span<const uint8_t> value) {
    data_.insert(data_.end(), value.begin(), value.end());
    ends_.push_back(data_.size());
  }
  void Append(const FieldColumn& other);
  // Sets every byte of row `row` to zero, its length kept: a damaged row held in its place so
  // that the rows after it keep theirs (index::ReadFieldColumn), and never delivered.
  void ZeroRow(int64_t row) {
    std::fill(data_.begin() + static_cast<std::ptrdiff_t>(begin(row)),
              data_.begin() + static_cast<std::ptrdiff_t>(end(row)), uint8_t{0});
  }
  void Clear() {
    data_.clear();
    ends_.clear();
  }
  void Reserve(size_t rows, size_t bytes) {
    ends_.reserve(rows);
    data_.reserve(bytes);
  }

  friend bool operator==(const FieldColumn&, const FieldColumn&) = default;

 private:
  std::vector<uint8_t> data_;
  std::vector<uint64_t> ends_;
};

}  // namespace h5feed
