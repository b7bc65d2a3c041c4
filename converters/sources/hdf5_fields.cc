// Hdf5Fields (hdf5_fields.h).

#include "sources/hdf5_fields.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "format/schema.h"
#include "h5feed/error.h"
#include "hdf5/attributes.h"
#include "hdf5/chunk_cache.h"
#include "hdf5/lock.h"
#include "hdf5/string_list_attribute.h"
#include "make_error.h"

namespace h5feed::converters {
namespace {

namespace schema = format::schema;

// HDF5's default chunk cache; the floor, as for the images (hdf5_source.cc).
constexpr size_t kMinFieldCacheBytes = size_t{1} << 20;

std::string_view Bare(std::string_view name) {
  return name.starts_with('/') ? name.substr(1) : name;
}

// The datasets of h5feed's schema beside images and labels: never a field, never noted.
bool SchemaDataset(std::string_view name) {
  static constexpr std::array<std::string_view, 12> kOwn = {
      schema::kClasses,        schema::kSources,      schema::kSkippedSources,
      schema::kSkippedReasons, schema::kChunkIndex,   schema::kRowChecksums,
      schema::kImageShapes,    schema::kImageOffsets, schema::kImageBytes,
      schema::kImageEncodings, schema::kBoxClasses,   schema::kBoxClassIds};
  return std::find(kOwn.begin(), kOwn.end(), name) != kOwn.end() ||
         name.starts_with(std::string(schema::kFieldChecksums) + "/") ||
         name.starts_with(std::string(schema::kFieldChunkIndex) + "/");
}

// What `entry` is as a field of `rows` rows: its spec, or why it is none; its name aside.
struct Candidate {
  const hdf5::DatasetEntry* entry = nullptr;
  FieldSpec spec;
  hdf5::ForeignFieldType type;
  std::string refusal;  // set when it cannot be a field
};

Candidate Describe(hid_t file, const hdf5::DatasetEntry& entry, int64_t rows,
                   const std::string& path) {
  Candidate c;
  c.entry = &entry;
  c.spec.name = std::string(Bare(entry.name));
  if (entry.dims.empty()) {
    c.refusal = "a scalar, not a value per image";
    return c;
  }
  if (entry.dims[0] != rows) {
    c.refusal = fmt::format("{} rows, not one per image ({})", entry.dims[0], rows);
    return c;
  }
  const hdf5::Dataset dataset = hdf5::OpenDataset(file, entry.name, path);
  c.type = hdf5::ForeignFieldTypeOf(dataset.get());
  if (!c.type.kind) {
    c.refusal = c.type.refusal;
    return c;
  }
  c.spec.kind = *c.type.kind;
  if (c.spec.kind == FieldKind::kArray) {
    c.spec.type = c.type.type;
    c.spec.shape.assign(entry.dims.begin() + 1, entry.dims.end());
  } else if (entry.dims.size() != 1) {
    c.refusal = fmt::format("{} values of {} dimensions; bytes and text fields are (N,)",
                            ToString(c.spec.kind), entry.dims.size());
    return c;
  }
  // The name is judged apart (NameProblem): here, whether the values fit a field.
  FieldSpec values = c.spec;
  values.name = "values";
  try {
    CheckFieldSpec(values);
  } catch (const Error&) {
    c.refusal = fmt::format(
        "rows of {}: every dimension must be at least 1 and a row at most "
        "2 GiB",
        c.spec.Describe());
  }
  return c;
}

// Whether a field may be named `name` (the name alone: CheckFieldSpec's first checks).
std::string NameProblem(const std::string& name) {
  try {
    CheckFieldSpec(FieldSpec{name, FieldKind::kBytes, FieldType::kUint8, {}, {}});
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

std::string NoteOf(const Candidate& c) {
  return fmt::format("{} ({} {}) is not carried as a field: {}", Bare(c.entry->name),
                     c.entry->dtype, hdf5::ShapeText(c.entry->dims), c.refusal);
}

// An h5feed file's own fields, in its order; empty for any other file.
std::vector<std::string> ListedFields(hid_t file) {
  if (!hdf5::HasAttribute(file, schema::kAttrFields)) return {};
  return hdf5::ReadStringListAttribute(file, schema::kAttrFields, schema::kMaxFields);
}

// Every dataset that can be a field, by the default rule; the others noted.
std::vector<Candidate> EveryField(hid_t file, const std::vector<hdf5::DatasetEntry>& datasets,
                                  int64_t rows, const std::vector<std::string>& taken,
                                  const std::string& path, std::vector<std::string>& notes) {
  std::vector<const hdf5::DatasetEntry*> order;
  for (const std::string& name : ListedFields(file)) {
    if (const hdf5::DatasetEntry* entry = hdf5::FindDataset(datasets, name)) order.push_back(entry);
  }
  for (const hdf5::DatasetEntry& entry : datasets) {
    if (std::find(order.begin(), order.end(), &entry) == order.end()) order.push_back(&entry);
  }
  std::vector<Candidate> fields;
  std::string unnamed;  // datasets whose names no field may take
  for (const hdf5::DatasetEntry* entry : order) {
    const std::string_view name = Bare(entry->name);
    if (SchemaDataset(name) ||
        std::find(taken.begin(), taken.end(), std::string(name)) != taken.end()) {
      continue;
    }
    Candidate c = Describe(file, *entry, rows, path);
    if (!c.refusal.empty()) {
      notes.push_back(NoteOf(c));
      continue;
    }
    const std::string problem = NameProblem(c.spec.name);
    if (name == schema::kImages || name == schema::kLabels) {
      c.refusal = problem;  // the file holds its own images or labels, as another dataset
      notes.push_back(NoteOf(c));
    } else if (!problem.empty()) {
      unnamed += fmt::format("\n  {} ({} {}): {}", name, entry->dtype, hdf5::ShapeText(entry->dims),
                             problem);
    } else {
      fields.push_back(std::move(c));
    }
  }
  if (!unnamed.empty()) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} holds a value per image in datasets that cannot be carried as fields "
                    "under their names:{}\nchoose the datasets to carry as fields (h5feed "
                    "rechunk --field NAME, repeatable; Python: fields=[...]), or carry none "
                    "(--no-fields; fields=[])",
                    path, unnamed);
  }
  return fields;
}

// Exactly the datasets `chosen` names, in its order.
std::vector<Candidate> ChosenFields(hid_t file, const std::vector<hdf5::DatasetEntry>& datasets,
                                    int64_t rows, const std::vector<std::string>& taken,
                                    const std::vector<std::string>& chosen,
                                    const std::string& path) {
  std::vector<Candidate> fields;
  for (const std::string& name : chosen) {
    const hdf5::DatasetEntry* entry = hdf5::FindDataset(datasets, name);
    if (entry == nullptr) {
      throw MakeError(ErrorCode::kNotFound,
                      "no dataset {} in {} to carry as a field; its "
                      "datasets: {}",
                      name, path, hdf5::ListText(datasets));
    }
    const std::string bare(Bare(entry->name));
    if (std::find(taken.begin(), taken.end(), bare) != taken.end()) {
      throw MakeError(ErrorCode::kInvalidArgument,
                      "{} of {} is read as the images or the labels; it cannot be a field too",
                      bare, path);
    }
    for (const Candidate& earlier : fields) {
      if (earlier.spec.name == bare) {
        throw MakeError(ErrorCode::kInvalidArgument, "field {} is chosen twice", bare);
      }
    }
    Candidate c = Describe(file, *entry, rows, path);
    if (c.refusal.empty()) c.refusal = NameProblem(bare);
    if (!c.refusal.empty()) {
      const bool unsupported =
          c.type.kind == std::nullopt && !entry->dims.empty() && entry->dims[0] == rows;
      throw MakeError(unsupported ? ErrorCode::kUnsupported : ErrorCode::kInvalidArgument,
                      "{} of {} ({} {}) cannot be a field: {}", bare, path, entry->dtype,
                      hdf5::ShapeText(entry->dims), c.refusal);
    }
    fields.push_back(std::move(c));
  }
  return fields;
}

// A chunk cache that holds two chunks of the dataset: rows read in order then decompress each
// chunk once (as for the images, hdf5_source.cc).
hdf5::PropertyList CacheFor(const hdf5::DatasetEntry& entry) {
  const std::vector<int64_t>& chunk = entry.storage.chunk;
  if (chunk.empty()) return hdf5::ChunkCacheAccess(0);
  size_t bytes = std::max<size_t>(entry.element_bytes, sizeof(void*) * 2);
  for (int64_t extent : chunk) bytes *= static_cast<size_t>(std::max<int64_t>(extent, 1));
  return hdf5::ChunkCacheAccess(std::max(2 * bytes, kMinFieldCacheBytes));
}

}  // namespace

Hdf5Fields Hdf5Fields::Open(hid_t file, const std::vector<hdf5::DatasetEntry>& datasets,
                            int64_t rows, const std::vector<std::string>& taken,
                            const Hdf5FieldChoice& choice, const std::string& path) {
  Hdf5Fields fields;
  fields.path_ = path;
  std::vector<std::string> bare_taken;
  for (const std::string& name : taken) bare_taken.emplace_back(Bare(name));
  const std::vector<Candidate> chosen =
      choice ? ChosenFields(file, datasets, rows, bare_taken, *choice, path)
             : EveryField(file, datasets, rows, bare_taken, path, fields.notes_);
  for (const Candidate& c : chosen) {
    const hdf5::PropertyList access = CacheFor(*c.entry);
    fields.fields_.push_back({hdf5::OpenDataset(file, c.entry->name, path, access.get()), c.type});
    fields.specs_.push_back(c.spec);
  }
  return fields;
}

std::vector<std::vector<uint8_t>> Hdf5Fields::Read(int64_t row) const {
  std::vector<std::vector<uint8_t>> values(fields_.size());
  if (fields_.empty()) return values;
  FieldColumn column;
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  for (size_t f = 0; f < fields_.size(); ++f) {
    column.Clear();
    hdf5::ReadForeignFieldRows(fields_[f].dataset.get(), fields_[f].type, specs_[f], row, 1, column,
                               path_);
    const std::span<const uint8_t> value = column.row(0);
    values[f].assign(value.begin(), value.end());
  }
  return values;
}

void Hdf5Fields::Close() { fields_.clear(); }

}  // namespace h5feed::converters
