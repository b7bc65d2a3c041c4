#include "loader/batch_fields.h"

#include <algorithm>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "field_row_check.h"
#include "h5feed/error.h"
#include "index/field_values.h"
#include "loader/options_check.h"
#include "make_error.h"

namespace h5feed::loader {
namespace {

const FieldSpec* FindSpec(const index::DatasetIndex& dataset, const std::string& name) {
  for (const FieldSpec& spec : dataset.fields) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

std::string Listed(const std::vector<FieldSpec>& specs) {
  std::string names;
  for (const FieldSpec& spec : specs) {
    names += (names.empty() ? "" : ", ") + spec.name + " (" + spec.Describe() + ")";
  }
  return names;
}

// The bytes a column holds (index::FieldColumnBytes' count of what it was read into).
uint64_t HeldBytes(const FieldColumn& column) {
  return index::FieldColumnBytes(column.rows(), column.data().size());
}

// Field `spec` read whole (index::ReadFieldColumn). With skip_corrupt_chunks its damaged rows
// go to `damaged` instead of failing the open; damage that is no one row's still fails it, as
// does a field none of whose rows reads (an epoch would deliver nothing), and the error says
// why the option did not leave it out.
FieldColumn ReadHeld(const index::DatasetIndex& dataset, const FieldSpec& spec, uint64_t left,
                     const std::string& advice, const LoaderOptions& options,
                     std::vector<index::DamagedFieldRow>& damaged) {
  if (!options.skip_corrupt_chunks) return index::ReadFieldColumn(dataset, spec.name, left, advice);
  try {
    const size_t before = damaged.size();
    FieldColumn column = index::ReadFieldColumn(dataset, spec.name, left, advice, &damaged);
    if (column.rows() > 0 && damaged.size() - before == static_cast<size_t>(column.rows())) {
      throw MakeError(ErrorCode::kCorrupt,
                      "every one of the {} rows of field {} in {} is damaged: {}", column.rows(),
                      spec.name, dataset.path, damaged[before].problem);
    }
    return column;
  } catch (const Error& error) {
    if (error.code() != ErrorCode::kCorrupt) throw;
    throw MakeError(ErrorCode::kCorrupt,
                    "{} ({} leaves out the image chunks of a held field's rows that fail their "
                    "checks, but this damage is to field {} as a whole: it cannot be read)",
                    error.what(), OptionName(options, "skip_corrupt_chunks"), spec.name);
  }
}

// The rows of `damaged`, ascending.
std::vector<int64_t> RowsOf(const std::vector<index::DamagedFieldRow>& damaged) {
  std::vector<int64_t> rows;
  rows.reserve(damaged.size());
  for (const index::DamagedFieldRow& row : damaged) rows.push_back(row.row);
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace

int BatchFields::Find(std::string_view name) const {
  for (size_t k = 0; k < fields.size(); ++k) {
    if (fields[k].spec.name == name) return static_cast<int>(k);
  }
  return -1;
}

std::string BatchFields::Names() const {
  std::vector<FieldSpec> specs;
  for (const BatchField& field : fields) specs.push_back(field.spec);
  return specs.empty() ? "none" : Listed(specs);
}

std::vector<FieldSpec> AskedFields(const LoaderOptions& options,
                                   const index::DatasetIndex& dataset) {
  std::vector<FieldSpec> asked;
  for (const std::string& name : options.fields) {
    const FieldSpec* spec = FindSpec(dataset, name);
    if (spec == nullptr) {
      throw MakeError(
          ErrorCode::kNotFound, "{} asks for field {}, which {} does not have; {}",
          OptionName(options, "fields"), name, dataset.path,
          dataset.fields.empty() ? "it has no fields" : "its fields: " + Listed(dataset.fields));
    }
    if (std::any_of(asked.begin(), asked.end(),
                    [&](const FieldSpec& other) { return other.name == name; })) {
      throw MakeError(ErrorCode::kInvalidArgument,
                      "{} names field {} twice; a batch delivers each field once",
                      OptionName(options, "fields"), name);
    }
    asked.push_back(*spec);
    if (IsPerBox(spec->kind) &&
        std::none_of(options.fields.begin(), options.fields.end(),
                     [&](const std::string& other) { return other == spec->boxes; })) {
      throw MakeError(ErrorCode::kInvalidArgument,
                      "{} asks for {} ({}) without the boxes they belong to; ask for {}: its "
                      "labels and values come with it",
                      OptionName(options, "fields"), name, spec->Describe(), spec->boxes);
    }
    if (spec->kind != FieldKind::kBoxes) continue;
    for (const FieldSpec& per_box : dataset.fields) {
      const bool listed = std::any_of(options.fields.begin(), options.fields.end(),
                                      [&](const std::string& n) { return n == per_box.name; });
      if (IsPerBox(per_box.kind) && per_box.boxes == name && !listed) asked.push_back(per_box);
    }
  }
  return asked;
}

std::vector<size_t> SlotRowBytes(const std::vector<FieldSpec>& asked,
                                 const ImageShape* device_images) {
  std::vector<size_t> row_bytes;
  for (const FieldSpec& spec : asked) {
    if (spec.kind == FieldKind::kArray) row_bytes.push_back(static_cast<size_t>(spec.row_bytes()));
  }
  for (const FieldSpec& spec : asked) {
    if (device_images != nullptr && spec.kind == FieldKind::kMask) {
      row_bytes.push_back(static_cast<size_t>(device_images->height * device_images->width) *
                          ElementBytes(spec.type));
    }
  }
  return row_bytes;
}

std::shared_ptr<const BatchFields> ReadBatchFields(const std::vector<FieldSpec>& asked,
                                                   const index::DatasetIndex& dataset,
                                                   uint64_t memory, const LoaderOptions& options,
                                                   const StreamedFields& streamed,
                                                   bool crops_at_gather) {
  auto fields = std::make_shared<BatchFields>();
  // The loader's fields are held beside its slots and cache, within the machine's memory.
  const std::string advice = fmt::format(
      "a loader holds its fields beside its {} slots and its cache, and together they must fit "
      "this machine's memory: lower {}, {} or {}, or leave the field out of {}",
      options.slots, OptionName(options, "cache_bytes"), OptionName(options, "slots"),
      OptionName(options, "batch_size"), OptionName(options, "fields"));
  uint64_t left = memory;
  int array_fields = 0;
  for (const FieldSpec& spec : asked) {
    std::shared_ptr<const FieldColumn> column;
    if (!streamed.Streams(spec.name)) {
      column = std::make_shared<const FieldColumn>(
          ReadHeld(dataset, spec, left, advice, options, fields->damaged_rows));
      left -= std::min(left, HeldBytes(*column));
    }
    const int slot_field = spec.kind == FieldKind::kArray ? array_fields++ : -1;
    fields->fields.push_back(BatchField{spec, std::move(column), slot_field});
  }
  for (BatchField& field : fields->fields) {
    if (field.spec.kind == FieldKind::kMask) field.device_slot_field = array_fields++;
  }
  const bool geometric = std::any_of(asked.begin(), asked.end(),
                                     [](const FieldSpec& spec) { return IsGeometric(spec.kind); });
  if (geometric) {
    // Each box's label and values are read beside it: a row of another count is damage.
    std::vector<FieldSpec> specs;
    std::vector<FieldColumn> columns;
    for (const BatchField& field : fields->fields) {
      if (field.spec.kind != FieldKind::kBoxes && !IsPerBox(field.spec.kind)) continue;
      specs.push_back(field.spec);
      columns.push_back(*field.column);
    }
    CheckPerBoxValueCounts(specs, columns, 0, ErrorCode::kCorrupt, dataset.path,
                           RowsOf(fields->damaged_rows));
  }
  if (geometric && crops_at_gather) {
    fields->image_sizes.reserve(static_cast<size_t>(dataset.samples));
    for (int64_t r = 0; r < dataset.samples; ++r) {
      const ImageShape shape = dataset.rows.at(r).shape;
      fields->image_sizes.push_back(
          {static_cast<int32_t>(shape.height), static_cast<int32_t>(shape.width)});
    }
  }
  return fields;
}

std::vector<pipeline::BatchGatherer::ArrayField> SlotArrayFields(const BatchFields& fields,
                                                                 bool device,
                                                                 const StreamedFields& streamed) {
  std::vector<pipeline::BatchGatherer::ArrayField> arrays;
  for (const BatchField& field : fields.fields) {
    if (field.slot_field < 0) continue;
    const auto row_bytes = static_cast<size_t>(field.spec.row_bytes());
    if (field.column) {
      arrays.push_back({.column = field.column, .row_bytes = row_bytes});
    } else {
      arrays.push_back({.column = nullptr,
                        .companion_offset = streamed.OffsetOf(field.spec.name),
                        .row_bytes = row_bytes});
    }
  }
  for (const BatchField& field : fields.fields) {
    // A stored row is the slot's row only in a file of one image size, whose masks are
    // stored as arrays of that size; others are made row by row (own_size_masks.h).
    if (device && field.device_slot_field >= 0 && field.spec.row_bytes() > 0) {
      arrays.push_back(
          {.column = field.column, .row_bytes = static_cast<size_t>(field.spec.row_bytes())});
    }
  }
  return arrays;
}

}  // namespace h5feed::loader
