// ReadFieldSpecs and FieldSpecOf (field_specs.h).

#include "index/field_specs.h"

#include <optional>
#include <set>
#include <utility>

#include "format/checksum_attribute.h"
#include "format/schema.h"
#include "h5feed/error.h"
#include "hdf5/attributes.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/integer_dataset.h"
#include "hdf5/string_list_attribute.h"
#include "make_error.h"

namespace h5feed::index {
namespace {

// What every refusal says after what is wrong.
constexpr char kDamaged[] =
    "the file is damaged, or was written by a program that does not "
    "follow docs/format.md (\"Fields\"); write it again";

FieldKind DeclaredKind(const hdf5::FieldDatasetEntry& entry, const std::string& where) {
  try {
    return ParseFieldKind(entry.declared_kind);
  } catch (const Error&) {
    throw MakeError(ErrorCode::kCorrupt,
                    "{} has attribute {} = \"{}\", not one of \"array\", \"bytes\", \"text\", "
                    "\"mask\", \"boxes\", \"box_labels\", \"box_values\": {}",
                    where, format::schema::kAttrField, entry.declared_kind, kDamaged);
  }
}

FieldType ParseMaskType(const std::string& text, const std::string& where) {
  if (text == "uint8") return FieldType::kUint8;
  if (text == "uint16") return FieldType::kUint16;
  throw MakeError(ErrorCode::kCorrupt,
                  "{} has attribute {} = \"{}\", not \"uint8\" or \"uint16\": {}", where,
                  format::schema::kAttrMaskType, text, kDamaged);
}

FieldType ParseBoxValueType(const std::string& text, const std::string& where) {
  try {
    return ParseFieldType(text);
  } catch (const Error&) {
    throw MakeError(ErrorCode::kCorrupt,
                    "{} has attribute {} = \"{}\", not an element type (\"int32\", "
                    "\"float32\", ...): {}",
                    where, format::schema::kAttrBoxValueType, text, kDamaged);
  }
}

}  // namespace

std::optional<hdf5::FieldDatasetEntry> DescribeField(hid_t file, const std::string& name,
                                                     const std::string& path) {
  std::optional<hdf5::FieldDatasetEntry> entry =
      hdf5::DescribeFieldDataset(file, name, format::schema::kAttrField, path);
  if (!entry) return entry;
  const hdf5::Dataset dataset = hdf5::OpenDataset(file, name, path);
  if (hdf5::HasAttribute(dataset.get(), format::schema::kAttrMaskType)) {
    entry->mask_type = hdf5::ReadStringAttribute(dataset.get(), format::schema::kAttrMaskType);
  }
  if (hdf5::HasAttribute(dataset.get(), format::schema::kAttrMaskEncoding)) {
    entry->mask_encoding =
        hdf5::ReadStringAttribute(dataset.get(), format::schema::kAttrMaskEncoding);
  }
  if (hdf5::HasAttribute(dataset.get(), format::schema::kAttrBoxes)) {
    entry->boxes = hdf5::ReadStringAttribute(dataset.get(), format::schema::kAttrBoxes);
  }
  if (hdf5::HasAttribute(dataset.get(), format::schema::kAttrBoxValueType)) {
    entry->box_value_type =
        hdf5::ReadStringAttribute(dataset.get(), format::schema::kAttrBoxValueType);
  }
  return entry;
}

std::string FieldChecksumsName(const std::string& name) {
  return std::string(format::schema::kFieldChecksums) + "/" + name;
}

namespace {

Error ChangedSinceOpened(const FieldSpec& spec, const std::string& path) {
  return MakeError(ErrorCode::kCorrupt,
                   "field {} in {} changed since the file was opened; open it again", spec.name,
                   path);
}

}  // namespace

hdf5::FieldDatasetEntry DescribeFieldAsOpened(hid_t file, const FieldSpec& spec, int64_t rows,
                                              const std::string& path) {
  std::optional<hdf5::FieldDatasetEntry> entry = DescribeField(file, spec.name, path);
  if (!entry || FieldSpecOf(*entry, spec.name, rows, path) != spec) {
    throw ChangedSinceOpened(spec, path);
  }
  return std::move(*entry);
}

std::vector<uint64_t> ReadFieldChecksums(hid_t file, const FieldSpec& spec, int64_t rows,
                                         const std::string& path) {
  const std::string name = FieldChecksumsName(spec.name);
  const hdf5::Dataset table = hdf5::TryOpenDataset(file, name);
  const int64_t shape[1] = {rows};
  std::optional<std::vector<uint64_t>> checksums =
      table ? hdf5::ReadIntegers<uint64_t>(table.get(), shape, "/" + name) : std::nullopt;
  if (!checksums) throw ChangedSinceOpened(spec, path);
  return std::move(*checksums);
}

FieldSpec FieldSpecOf(const hdf5::FieldDatasetEntry& entry, const std::string& name, int64_t rows,
                      const std::string& path) {
  const std::string where = "field " + name + " in " + path;
  const hdf5::DatasetEntry& d = entry.dataset;
  FieldSpec spec;
  spec.name = name;
  spec.kind = DeclaredKind(entry, where);
  // The geometric kinds are stored as arrays or bytes (StoredKind): what they are beyond their
  // storage is in their attributes.
  if (spec.kind == FieldKind::kMask && d.dims.size() != 3) {
    spec.type = ParseMaskType(entry.mask_type, where);
  } else if (spec.kind == FieldKind::kBoxes) {
    spec.type = FieldType::kFloat32;
  } else if (spec.kind == FieldKind::kBoxLabels) {
    spec.type = FieldType::kInt64;
    spec.boxes = entry.boxes;
  } else if (spec.kind == FieldKind::kBoxValues) {
    spec.type = ParseBoxValueType(entry.box_value_type, where);
    spec.boxes = entry.boxes;
  }
  const FieldKind stored = spec.kind == FieldKind::kMask
                               ? (d.dims.size() == 3 ? FieldKind::kArray : FieldKind::kBytes)
                               : StoredKind(spec);
  if (entry.value.kind != stored) {
    throw MakeError(ErrorCode::kCorrupt, "{} says it is {} but holds {} values: {}", where,
                    ToString(spec.kind), d.dtype, kDamaged);
  }
  const size_t rank = stored == FieldKind::kArray ? d.dims.size() : 1;
  if (d.dims.empty() || d.dims.size() != rank || d.dims[0] != rows) {
    throw MakeError(ErrorCode::kCorrupt,
                    "{} has shape {}; a{} field has one row per image ({}){}: {}", where,
                    hdf5::ShapeText(d.dims), stored == FieldKind::kArray ? "n array" : "", rows,
                    stored == FieldKind::kArray ? "" : " and no other dimension", kDamaged);
  }
  if (stored == FieldKind::kArray) {
    spec.type = entry.value.type;
    spec.shape.assign(d.dims.begin() + 1, d.dims.end());
  }
  try {
    CheckFieldSpec(spec);
  } catch (const Error& e) {
    throw MakeError(ErrorCode::kCorrupt, "{}: {}", where, e.what());
  }
  if (stored == FieldKind::kArray) {
    // Checked above.
  } else if (d.storage.problem || d.storage.kind != hdf5::StorageKind::kChunked ||
             d.storage.chunk.size() != 1 || !d.storage.filters.empty()) {
    // Its claims are read from its chunks before any value (hdf5/variable_length_claims.h).
    if (d.storage.problem) throw *d.storage.problem;
    throw MakeError(
        ErrorCode::kCorrupt, "{} is stored {}{}; a {} field is stored in unfiltered chunks: {}",
        where,
        d.storage.chunk.empty() ? "contiguous" : "in chunks " + hdf5::ShapeText(d.storage.chunk),
        d.storage.filters.empty() ? "" : " with filters", ToString(spec.kind), kDamaged);
  }
  return spec;
}

std::vector<FieldSpec> ReadFieldSpecs(hid_t file, int64_t rows, const std::string& path) {
  if (!hdf5::HasAttribute(file, format::schema::kAttrFields)) return {};
  std::vector<std::string> names;
  try {
    names = hdf5::ReadStringListAttribute(file, format::schema::kAttrFields,
                                          format::schema::kMaxFields);
  } catch (const Error& e) {
    throw MakeError(ErrorCode::kCorrupt, "{}: {}", path, e.what());
  }
  std::vector<FieldSpec> specs;
  std::set<std::string> seen;
  for (const std::string& name : names) {
    try {
      CheckFieldSpec(FieldSpec{name, FieldKind::kBytes, FieldType::kUint8, {}, {}});
    } catch (const Error& e) {
      throw MakeError(ErrorCode::kCorrupt, "attribute {} of {} lists a field that cannot be: {}",
                      format::schema::kAttrFields, path, e.what());
    }
    if (!seen.insert(name).second) {
      throw MakeError(ErrorCode::kCorrupt, "attribute {} of {} lists field {} twice: {}",
                      format::schema::kAttrFields, path, name, kDamaged);
    }
    const std::optional<hdf5::FieldDatasetEntry> entry = DescribeField(file, name, path);
    if (!entry) {
      throw MakeError(ErrorCode::kCorrupt, "{} lists field {} but has no dataset /{}: {}", path,
                      name, name, kDamaged);
    }
    specs.push_back(FieldSpecOf(*entry, name, rows, path));
    const hdf5::Dataset checksums = hdf5::TryOpenDataset(file, FieldChecksumsName(name));
    const std::optional<hdf5::DatasetEntry> table =
        checksums ? std::optional(hdf5::DescribeDataset(checksums.get(), FieldChecksumsName(name)))
                  : std::nullopt;
    if (!table || !table->is_integer || table->element_bytes != 8 ||
        table->dtype.rfind("uint", 0) != 0 || table->dims != std::vector<int64_t>{rows}) {
      throw MakeError(ErrorCode::kCorrupt,
                      "field {} in {} has no checksums: /{} is missing or not {} uint64 values, "
                      "one per row: {}",
                      name, path, FieldChecksumsName(name), rows, kDamaged);
    }
    format::RequireKnownChecksum(checksums.get(),
                                 "dataset /" + FieldChecksumsName(name) + " in " + path);
  }
  return specs;
}

}  // namespace h5feed::index
