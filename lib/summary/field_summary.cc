// SummarizeFields (field_summary.h).

#include "summary/field_summary.h"

#include <optional>
#include <string>
#include <vector>

#include "format/box_classes_table.h"
#include "format/schema.h"
#include "h5feed/error.h"
#include "h5feed/field.h"
#include "hdf5/attribute_text.h"
#include "hdf5/attributes.h"
#include "hdf5/field_read.h"
#include "hdf5/handle.h"
#include "hdf5/string_list_attribute.h"
#include "hdf5/variable_length_claims.h"
#include "summary/file_summary.h"

namespace h5feed::summary {
namespace {

namespace schema = format::schema;

std::string Damaged(const std::string& what) {
  return what + ": the file is damaged (h5feed verify checks every field)";
}

// The kind a field declared `declared` is stored as (docs/format.md, "Masks and boxes"): a
// mask of a file of one image size as an array (N, H, W), other masks, boxes, box labels and
// box values as bytes; the others as themselves.
std::string StoredAs(const std::string& declared, size_t rank) {
  if (declared == "mask") return rank == 3 ? "array" : "bytes";
  if (declared == "boxes" || declared == "box_labels" || declared == "box_values") return "bytes";
  return declared;
}

// What a field of box labels or values declares beyond its kind, as FieldSpec::Describe says
// it ("box_values int32 of boxes"), from its attributes; just `declared` for the other kinds,
// or when the attributes say nothing readable (a reader's open says what is wrong).
std::string DeclaredAs(hid_t file, const std::string& name, const std::string& declared,
                       const std::string& path) {
  if (declared != "box_labels" && declared != "box_values") return declared;
  const hdf5::Dataset dataset = hdf5::OpenDataset(file, name, path);
  FieldSpec spec{name, ParseFieldKind(declared), FieldType::kInt64, {}, {}};
  if (hdf5::HasAttribute(dataset.get(), schema::kAttrBoxes)) {
    spec.boxes = hdf5::ReadStringAttribute(dataset.get(), schema::kAttrBoxes);
  }
  if (spec.kind == FieldKind::kBoxValues &&
      hdf5::HasAttribute(dataset.get(), schema::kAttrBoxValueType)) {
    try {
      spec.type =
          ParseFieldType(hdf5::ReadStringAttribute(dataset.get(), schema::kAttrBoxValueType));
    } catch (const Error&) {
      return declared;
    }
  } else if (spec.kind == FieldKind::kBoxValues) {
    return declared;
  }
  return spec.boxes.empty() ? declared : spec.Describe();
}

// Field `name` as its dataset says, or nullopt with a note in `s`.
std::optional<FieldSummary> Summarize(hid_t file, const std::string& name, bool local,
                                      FileSummary& s) {
  const std::optional<hdf5::FieldDatasetEntry> entry =
      hdf5::DescribeFieldDataset(file, name, schema::kAttrField, s.path);
  if (!entry) {
    s.notes.push_back(Damaged("field " + name + " is listed in `fields` but has no dataset"));
    return std::nullopt;
  }
  const hdf5::DatasetEntry& dataset = entry->dataset;
  if (!entry->value.kind ||
      StoredAs(entry->declared_kind, dataset.dims.size()) != ToString(*entry->value.kind) ||
      dataset.dims.empty()) {
    s.notes.push_back(Damaged("field " + name + " is " + dataset.dtype + " " +
                              hdf5::ShapeText(dataset.dims) + " with h5feed_field \"" +
                              entry->declared_kind + "\""));
    return std::nullopt;
  }
  FieldSpec spec{name, *entry->value.kind, entry->value.type, {}, {}};
  FieldSummary f;
  f.name = name;
  f.kind = std::string(ToString(spec.kind));
  const uint64_t rows = static_cast<uint64_t>(dataset.dims[0]);
  bool heap_known = spec.kind == FieldKind::kArray;  // an array has no values in the heap
  if (spec.kind == FieldKind::kArray) {
    spec.shape.assign(dataset.dims.begin() + 1, dataset.dims.end());
    f.dtype = std::string(ToString(spec.type));
    f.shape = spec.shape;
    f.value_bytes = rows * static_cast<uint64_t>(std::max<int64_t>(spec.row_bytes(), 0));
  } else if (local && !dataset.storage.chunk.empty() && dataset.storage.filters.empty()) {
    try {
      const hdf5::Dataset opened = hdf5::OpenDataset(file, name, s.path);
      const hdf5::VariableLengthClaims claims =
          hdf5::ReadVariableLengthClaims(opened.get(), dataset.dims[0], "field " + name, s.path);
      f.value_bytes = claims.total;
      f.heap_bytes = claims.heap_bytes;
      heap_known = true;
    } catch (const Error& e) {
      s.notes.push_back(Damaged(e.what()));
    }
  }
  f.type = spec.Describe();
  if (entry->declared_kind != f.kind) {  // a mask, boxes, box labels or values (format.md)
    f.kind = entry->declared_kind;
    f.type = DeclaredAs(file, name, f.kind, s.path) + " (stored as " + f.type + ")";
  }
  f.storage = spec.kind == FieldKind::kArray ? "chunks" : "global heap";
  for (DatasetSummary& stored : s.datasets) {
    if (stored.name != name) continue;
    // A bytes or text field's chunks hold descriptors alone: with its heap unknown, its bytes
    // in the file are unknown too, never the descriptors' few bytes.
    if (heap_known && stored.stored_bytes > 0) f.stored_bytes = stored.stored_bytes + f.heap_bytes;
    stored.heap_bytes = f.heap_bytes;
  }
  return f;
}

}  // namespace

void SummarizeFields(hid_t file, bool local, FileSummary& s) {
  if (!s.is_h5feed) return;
  s.labelled = hdf5::ReadAttributeText(file, schema::kAttrLabelled) != "0";
  if (!hdf5::HasAttribute(file, schema::kAttrFields)) return;
  std::vector<std::string> names;
  try {
    names = hdf5::ReadStringListAttribute(file, schema::kAttrFields, schema::kMaxFields);
  } catch (const Error& e) {
    s.notes.push_back(Damaged(e.what()));
    return;
  }
  for (const std::string& name : names) {
    try {
      if (std::optional<FieldSummary> field = Summarize(file, name, local, s)) {
        s.fields.push_back(std::move(*field));
      }
    } catch (const Error& e) {
      s.notes.push_back(Damaged(e.what()));
    }
  }
  try {
    s.box_classes = format::ReadBoxClasses(file, s.path);
  } catch (const Error& e) {
    s.notes.push_back(Damaged(e.what()));
  }
}

}  // namespace h5feed::summary
