// FieldSpec, FieldColumn and the field enums' words (h5feed/field.h).
#include "h5feed/field.h"

#include <array>
#include <limits>
#include <string>

#include "enum_names.h"
#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed {
namespace {

// The datasets of an h5feed file (lib/format/schema.h, docs/format.md) and the keys a loader's
// batch dict has besides its fields (docs/python.md): a field named so would hide one of them.
constexpr std::array<std::string_view, 18> kReserved = {
    "images",          "labels",          "indices",          "classes",         "sources",
    "skipped_sources", "skipped_reasons", "chunk_index",      "row_checksums",   "image_shapes",
    "image_offsets",   "image_bytes",     "image_encodings",  "field_checksums", "boxes_count",
    "box_classes",     "box_class_ids",   "field_chunk_index"};

// A row's bytes must fit a chunk and an index: 2 GiB is far past any real field value.
constexpr int64_t kMaxRowBytes = int64_t{1} << 31;

std::string Listed(std::span<const std::string_view> words) {
  std::string text;
  for (std::string_view word : words) text += (text.empty() ? "" : ", ") + std::string(word);
  return text;
}

// The element types and shapes the geometric kinds take (docs/format.md, "Masks and boxes").
void CheckGeometricSpec(const FieldSpec& spec) {
  if (spec.kind == FieldKind::kMask &&
      ((spec.type != FieldType::kUint8 && spec.type != FieldType::kUint16) ||
       (!spec.shape.empty() && spec.shape.size() != 2))) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "mask field \"{}\" is {}: a mask is uint8 (or uint16, for more than 256 "
                    "classes) of the image's height x width",
                    spec.name, spec.Describe());
  }
  if (spec.kind == FieldKind::kBoxes && (spec.type != FieldType::kFloat32 || !spec.shape.empty())) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "boxes field \"{}\" must be float32 without a shape (K x 4 xyxy per row)",
                    spec.name);
  }
  if (spec.kind == FieldKind::kBoxLabels &&
      (spec.type != FieldType::kInt64 || !spec.shape.empty())) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "box_labels field \"{}\" must be int64 without a shape (one class per box)",
                    spec.name);
  }
  if (spec.kind == FieldKind::kBoxValues && !spec.shape.empty()) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "box_values field \"{}\" has a shape: it holds one {} per box (a scalar); "
                    "store each part of a value as a box_values field of its own",
                    spec.name, ToString(spec.type));
  }
  if (IsPerBox(spec.kind) && spec.boxes.empty()) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} field \"{}\" names no boxes field: it holds one value per box of the "
                    "boxes field FieldSpec::boxes names",
                    ToString(spec.kind), spec.name);
  }
  if (!IsPerBox(spec.kind) && !spec.boxes.empty()) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "field \"{}\" is {}, not box_labels or box_values: it names no boxes field",
                    spec.name, ToString(spec.kind));
  }
}

}  // namespace

std::string_view ToString(FieldKind kind) noexcept { return NameOf(kind); }
FieldKind ParseFieldKind(std::string_view text) { return ParseName<FieldKind>(text); }
std::string_view ToString(FieldType type) noexcept { return NameOf(type); }
FieldType ParseFieldType(std::string_view text) { return ParseName<FieldType>(text); }

size_t ElementBytes(FieldType type) noexcept {
  switch (type) {
    case FieldType::kBool:
    case FieldType::kInt8:
    case FieldType::kUint8: return 1;
    case FieldType::kInt16:
    case FieldType::kUint16:
    case FieldType::kFloat16: return 2;
    case FieldType::kInt32:
    case FieldType::kUint32:
    case FieldType::kFloat32: return 4;
    case FieldType::kInt64:
    case FieldType::kUint64:
    case FieldType::kFloat64: return 8;
  }
  return 1;
}

FieldKind StoredKind(const FieldSpec& spec) noexcept {
  switch (spec.kind) {
    case FieldKind::kArray:
    case FieldKind::kBytes:
    case FieldKind::kText: return spec.kind;
    case FieldKind::kMask: return spec.shape.empty() ? FieldKind::kBytes : FieldKind::kArray;
    case FieldKind::kBoxes:
    case FieldKind::kBoxLabels:
    case FieldKind::kBoxValues: return FieldKind::kBytes;
  }
  return spec.kind;
}

bool IsGeometric(FieldKind kind) noexcept {
  return kind == FieldKind::kMask || kind == FieldKind::kBoxes || IsPerBox(kind);
}

bool IsPerBox(FieldKind kind) noexcept {
  return kind == FieldKind::kBoxLabels || kind == FieldKind::kBoxValues;
}

size_t BoxValueBytes(const FieldSpec& spec) noexcept {
  if (spec.kind == FieldKind::kBoxes) return 4 * sizeof(float);
  return IsPerBox(spec.kind) ? ElementBytes(spec.type) : 0;
}

int64_t FieldSpec::row_bytes() const {
  if (StoredKind(*this) != FieldKind::kArray) return 0;
  int64_t bytes = static_cast<int64_t>(ElementBytes(type));
  for (int64_t dim : shape) {
    if (dim < 1 || bytes > kMaxRowBytes / dim) return -1;  // refused by CheckFieldSpec
    bytes *= dim;
  }
  return bytes;
}

std::string FieldSpec::Describe() const {
  if (kind == FieldKind::kBoxLabels) return "box_labels of " + boxes;
  if (kind == FieldKind::kBoxValues) {
    return "box_values " + std::string(ToString(type)) + " of " + boxes;
  }
  if (kind != FieldKind::kArray && kind != FieldKind::kMask) return std::string(ToString(kind));
  std::string text = kind == FieldKind::kMask ? "mask " : "";
  text += ToString(type);
  if (shape.empty()) return text;
  text += "[";
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d > 0) text += ',';
    text += std::to_string(shape[d]);
  }
  return text + "]";
}

std::span<const std::string_view> ReservedFieldNames() { return kReserved; }

void CheckFieldSpec(const FieldSpec& spec) {
  if (spec.name.empty()) {
    throw Error(ErrorCode::kInvalidArgument, "a field needs a name");
  }
  for (char c : spec.name) {
    if (c == '/' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      throw MakeError(ErrorCode::kInvalidArgument,
                      "field name \"{}\" holds '/' or a control character; a field is a dataset "
                      "at the file's root, named after it",
                      spec.name);
    }
  }
  // HDF5 reads "." as the group a name is looked up in: a dataset cannot be created under it.
  if (spec.name == ".") {
    throw Error(ErrorCode::kInvalidArgument,
                "a field cannot be named \".\": HDF5 takes it for the file's root group, where "
                "a field's dataset would be; give the field another name");
  }
  for (std::string_view reserved : kReserved) {
    if (spec.name == reserved) {
      throw MakeError(ErrorCode::kInvalidArgument,
                      "a field cannot be named \"{}\": the file (or a batch) has one of that name "
                      "already. Reserved: {}",
                      spec.name, Listed(kReserved));
    }
  }
  CheckGeometricSpec(spec);
  if (StoredKind(spec) != FieldKind::kArray) return;
  const int64_t bytes = spec.row_bytes();
  if (bytes < 1 || bytes > kMaxRowBytes) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "field \"{}\" is {}: every dimension must be at least 1 and a row at most 2 "
                    "GiB",
                    spec.name, spec.Describe());
  }
}

void FieldColumn::Append(const FieldColumn& other) {
  const uint64_t base = data_.size();
  data_.insert(data_.end(), other.data_.begin(), other.data_.end());
  for (uint64_t end : other.ends_) ends_.push_back(base + end);
}

}  // namespace h5feed
