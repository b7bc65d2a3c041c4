#include "part_set.h"

#include <algorithm>
#include <limits>
#include <string_view>
#include <utility>

#include "conversion_part.h"
#include "format/box_classes_table.h"
#include "format/schema.h"
#include "format/skipped_lists.h"
#include "h5feed/compression.h"
#include "h5feed/error.h"
#include "hdf5/attribute_text.h"
#include "hdf5/error.h"
#include "hdf5/lock.h"
#include "hdf5/open_hdf5_file.h"
#include "hdf5/strings.h"
#include "index/field_values.h"
#include "make_error.h"

namespace h5feed::converters {
namespace {

namespace schema = format::schema;

// The root attributes every part of one conversion has alike, the most telling first: a seed
// or a compression that differs says more than the fingerprint that follows from it.
constexpr const char* kShared[] = {
    schema::kAttrFormatVersion, schema::kAttrLayout,           schema::kAttrSourceKind,
    schema::kAttrPartCount,     schema::kAttrConversionInputs, schema::kAttrShuffled,
    schema::kAttrShuffleSeed,   schema::kAttrChunkImages,      schema::kAttrChunkBytes,
    schema::kAttrMaxSide,       schema::kAttrEncoding,         schema::kAttrSmartThreshold,
    schema::kAttrCompression,   schema::kAttrNumClasses,
};

const std::string& Attribute(const PartFile& part, const char* name) {
  static const std::string absent;
  auto found = part.attributes.find(name);
  return found == part.attributes.end() ? absent : found->second;
}

int64_t IntegerAttribute(const PartFile& part, const char* name) {
  const std::string& text = Attribute(part, name);
  try {
    size_t used = 0;
    const int64_t value = std::stoll(text, &used);
    if (used == text.size()) return value;
  } catch (const std::logic_error&) {}
  throw MakeError(ErrorCode::kCorrupt, "{}: root attribute {} is '{}', not an integer", part.path,
                  name, text);
}

std::string Quoted(const std::string& value) { return value.empty() ? "none" : "'" + value + "'"; }

PartFile OpenPart(const std::string& path) {
  PartFile part;
  part.path = path;
  index::IndexOptions index_options;
  // Every row of the chunk table against HDF5's own index (one B-tree lookup each): the merge
  // copies chunks from where the table says they lie.
  index_options.verify_table_entries = std::numeric_limits<int>::max();
  part.index = index::OpenDatasetIndex(path, index_options);
  if (!part.index.is_h5feed) {
    throw MakeError(
        ErrorCode::kInvalidArgument,
        "{} is not an h5feed file: merge joins the parts `h5feed convert --part` and `h5feed "
        "rechunk --part` write",
        path);
  }
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  const hdf5::File file =
      std::move(hdf5::OpenHdf5File(part.index.location, part.index.file_locking).file);
  for (hdf5::AttributeText& attribute : hdf5::ReadAllAttributesText(file.get())) {
    part.attributes[attribute.name] = std::move(attribute.value);
  }
  if (!part.attributes.count(schema::kAttrPartIndex)) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} is not a part of a conversion in parts (it has no {} attribute): {}", path,
                    schema::kAttrPartIndex,
                    (part.attributes.count(schema::kAttrMergedParts)
                         ? "it was merged already"
                         : "it was converted whole, without --part"));
  }
  part.part = IntegerAttribute(part, schema::kAttrPartIndex);
  const size_t rows = static_cast<size_t>(part.index.samples);
  if (part.index.row_checksums.size() != rows) {
    throw MakeError(ErrorCode::kCorrupt,
                    "{} has no /row_checksums, which every part h5feed writes has", path);
  }
  part.sources = hdf5::ReadStringDataset(file.get(), schema::kSources);
  if (part.sources.size() != rows) {
    throw MakeError(ErrorCode::kCorrupt, "{} has {} /sources for {} images", path,
                    part.sources.size(), rows);
  }
  part.skipped = format::ReadSkippedLists(file.get(), path);
  part.box_classes = format::ReadBoxClasses(file.get(), path);
  return part;
}

// Reads every field of `part` whole, each row checked (ReadFieldColumn takes the lock itself).
void ReadPartFields(PartFile& part) {
  for (const FieldSpec& spec : part.index.fields) {
    part.fields.push_back(
        index::ReadFieldColumn(part.index, spec.name, std::numeric_limits<uint64_t>::max()));
  }
}

std::string FieldsText(const index::DatasetIndex& index) {
  std::string text;
  for (const FieldSpec& spec : index.fields) {
    text += (text.empty() ? "" : ", ") + spec.name + " (" + spec.Describe() + ")";
  }
  return text.empty() ? "none" : text;
}

// Throws when `part` differs from `first` in anything the parts of one conversion share.
void CheckAlike(const PartFile& first, const PartFile& part) {
  auto differ = [&](const std::string& what, const std::string& a, const std::string& b) {
    throw MakeError(
        ErrorCode::kInvalidArgument,
        "the parts are not of one conversion: {} has {} {}, {} {}; merge the parts of one `convert "
        "--part` run, all given the same options",
        part.path, what, b, first.path, a);
  };
  for (const char* name : kShared) {
    const std::string& a = Attribute(first, name);
    const std::string& b = Attribute(part, name);
    if (a != b) differ(name, Quoted(a), Quoted(b));
  }
  const ImageShape& a = first.index.shape;
  const ImageShape& b = part.index.shape;
  if (first.index.stored_layout != StoredLayout::kFlat && a != b) {
    auto text = [](const ImageShape& s) {
      return std::to_string(s.height) + "x" + std::to_string(s.width) + "x" +
             std::to_string(s.channels);
    };
    differ("images of", text(a), text(b));
  }
  const std::vector<std::string>& ca = first.index.classes;
  const std::vector<std::string>& cb = part.index.classes;
  const auto mismatch = std::mismatch(ca.begin(), ca.end(), cb.begin(), cb.end());
  if (mismatch.first != ca.end() || mismatch.second != cb.end()) {
    const std::string at = std::to_string(mismatch.first - ca.begin());
    differ("class " + at, mismatch.first == ca.end() ? "none" : Quoted(*mismatch.first),
           mismatch.second == cb.end() ? "none" : Quoted(*mismatch.second));
  }
  if (first.index.labelled != part.index.labelled) {
    differ("labels:", first.index.labelled ? "some" : "none",
           part.index.labelled ? "some" : "none");
  }
  if (first.index.fields != part.index.fields) {
    differ("fields", FieldsText(first.index), FieldsText(part.index));
  }
  const char* fingerprint = schema::kAttrPartFingerprint;
  if (Attribute(first, fingerprint) != Attribute(part, fingerprint)) {
    differ(std::string(fingerprint) + " (of the list of inputs in stored order)",
           Quoted(Attribute(first, fingerprint)),
           Quoted(Attribute(part, fingerprint)) +
               ": they were converted from different inputs (another folder, or one that "
               "changed between the parts' conversions)");
  }
}

// Puts the parts in part order; throws for a part number given twice, missing or out of range.
std::vector<PartFile> InPartOrder(std::vector<PartFile> opened) {
  const int64_t count = IntegerAttribute(opened.front(), schema::kAttrPartCount);
  std::vector<PartFile*> by_number(static_cast<size_t>(std::max<int64_t>(count, 0)), nullptr);
  for (PartFile& part : opened) {
    if (part.part < 0 || part.part >= count) {
      throw MakeError(ErrorCode::kCorrupt, "{} says it is part {} of {}", part.path, part.part,
                      count);
    }
    PartFile*& slot = by_number[static_cast<size_t>(part.part)];
    if (slot != nullptr) {
      throw MakeError(ErrorCode::kInvalidArgument, "part {} of {} is given twice: {} and {}",
                      part.part, count, slot->path, part.path);
    }
    slot = &part;
  }
  // Each missing part by the file it would be, named from a given part's file as
  // `--part K/N` names them, where that file keeps its name.
  const PartFile& given = opened.front();
  const std::optional<std::string> whole = WholePath(given.path, {given.part, count});
  std::string missing;
  int64_t missing_count = 0;
  for (int64_t k = 0; k < count; ++k) {
    if (by_number[static_cast<size_t>(k)] != nullptr) continue;
    if (++missing_count > 8) continue;
    missing += (missing.empty() ? "part " : ", part ") + std::to_string(k) +
               (whole ? " (" + PartPath(*whole, {k, count}) + ")" : "");
  }
  if (missing_count > 0) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} of the {} parts are missing: {}{}; give every part", missing_count, count,
                    missing, (missing_count > 8 ? ", ..." : ""));
  }
  std::vector<PartFile> ordered;
  for (PartFile* part : by_number) ordered.push_back(std::move(*part));
  return ordered;
}

}  // namespace

PartSet OpenParts(const std::vector<std::string>& paths) {
  if (paths.empty()) throw Error(ErrorCode::kInvalidArgument, "no part to merge");
  std::vector<PartFile> opened;
  for (const std::string& path : paths) opened.push_back(OpenPart(path));
  for (const PartFile& part : opened) CheckAlike(opened.front(), part);
  for (PartFile& part : opened) ReadPartFields(part);
  PartSet set;
  set.parts = InPartOrder(std::move(opened));
  const PartFile& first = set.parts.front();
  const int64_t inputs = IntegerAttribute(first, schema::kAttrConversionInputs);
  for (const PartFile& part : set.parts) {
    const auto [begin, end] =
        PartSlice(inputs, {part.part, IntegerAttribute(part, schema::kAttrPartCount)});
    const int64_t held = part.index.samples + static_cast<int64_t>(part.skipped.size());
    if (held != end - begin) {
      throw MakeError(
          ErrorCode::kCorrupt,
          "{} holds {} inputs (images and skipped), but part {} of a conversion of {} inputs "
          "converts {}",
          part.path, held, part.part, inputs, end - begin);
    }
  }

  set.writer.compression = Compression::Parse(Attribute(first, schema::kAttrCompression));
  if (first.index.stored_layout == StoredLayout::kFlat) {
    FlatLayout layout;
    layout.chunk_bytes = first.index.chunk_bytes();
    layout.max_side = first.index.max_side;
    layout.encoding = StoredEncoding::Parse(first.index.encoding);
    if (layout.encoding.kind == StoredEncoding::Kind::kSmart) {
      layout.smart_threshold = IntegerAttribute(first, schema::kAttrSmartThreshold);
    }
    set.writer.flat = layout;
  } else {
    set.writer.image_shape = first.index.shape;
    set.writer.chunk_images = first.index.chunk_samples;
  }
  set.writer.fields = first.index.fields;
  set.writer.labelled = first.index.labelled;
  // The parts' boxes are an h5feed file's: pixels, already checked as they were written.
  set.writer.box_coordinates = BoxCoordinates::kPixels;
  if (first.index.labelled) set.description.classes = first.index.classes;
  set.description.box_classes = first.box_classes;
  set.description.source_kind = Attribute(first, schema::kAttrSourceKind);
  if (Attribute(first, schema::kAttrShuffled) == "1") {
    set.description.shuffle_seed = std::stoull(Attribute(first, schema::kAttrShuffleSeed));
  }
  return set;
}

}  // namespace h5feed::converters
