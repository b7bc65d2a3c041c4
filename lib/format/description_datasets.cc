// WriteDescriptionDatasets and WriteRootAttributes (description_datasets.h).

#include "format/description_datasets.h"

#include <span>
#include <string_view>
#include <vector>

#include "format/schema.h"
#include "format/values_checksum.h"
#include "h5feed/error.h"
#include "hdf5/attributes.h"
#include "hdf5/integer_dataset.h"
#include "hdf5/strings.h"
#include "utf8.h"

#ifndef H5FEED_VERSION
#error "H5FEED_VERSION must be defined by the build (lib/format/CMakeLists.txt)"
#endif

namespace h5feed::format {
namespace {

// What HDF5 allocates beyond the datasets' own bytes: object headers, attributes, global heap
// collections (4 KiB each) and B-tree nodes.
constexpr uint64_t kFinishSlack = uint64_t{1} << 20;

}  // namespace

uint64_t DescriptionBytes(const DatasetDescription& d, size_t chunks) {
  // Labels and image checksums: 8 bytes per image each; the chunk table: 28 per chunk.
  uint64_t bytes = kFinishSlack + 16 * d.labels.size() + 28 * chunks;
  auto add = [&bytes](const std::string& text) { bytes += text.size() + 40; };
  for (const std::string& text : d.sources) add(text);
  for (const std::string& text : d.classes) add(text);
  for (const std::string& text : d.box_classes.names) add(text);
  bytes += 8 * d.box_classes.source_ids.size();
  for (const SkippedSource& skipped : d.skipped) {
    add(skipped.source);
    add(skipped.reason);
  }
  return bytes;
}

void WriteDescriptionDatasets(hid_t root, const DatasetDescription& d, bool labelled) {
  if (labelled) {
    hdf5::WriteIntegerDataset<int64_t>(root, schema::kLabels, d.labels);
    WriteValuesChecksum(root, schema::kLabels, ValuesChecksum(d.labels));
  }

  std::vector<std::string> skipped_sources, skipped_reasons;
  for (const SkippedSource& skipped : d.skipped) {
    skipped_sources.push_back(skipped.source);
    skipped_reasons.push_back(skipped.reason);
  }
  // Names come from file systems, whose names are bytes: made valid UTF-8 here, the one place
  // they are stored, so that the datasets hold what their type declares (utf8.h).
  const auto write_strings = [root](const char* name, std::span<const std::string> given) {
    std::vector<std::string> values;
    values.reserve(given.size());
    for (const std::string& value : given) values.push_back(EscapeInvalidUtf8(value));
    hdf5::WriteStringDataset(root, name, values);
    WriteValuesChecksum(root, name, ValuesChecksum(std::span<const std::string>(values)));
  };
  write_strings(schema::kClasses, d.classes);
  write_strings(schema::kSources, d.sources);
  write_strings(schema::kSkippedSources, skipped_sources);
  write_strings(schema::kSkippedReasons, skipped_reasons);
  if (!d.box_classes.empty()) {
    hdf5::WriteStringDataset(root, schema::kBoxClasses, d.box_classes.names);
    hdf5::WriteIntegerDataset<int64_t>(root, schema::kBoxClassIds, d.box_classes.source_ids);
  }
}

void WriteRootAttributes(hid_t root, const DatasetDescription& d, const ImagesWritten& images) {
  const bool flat = images.flat.has_value();
  hdf5::WriteAttribute(root, schema::kAttrLayout,
                       std::string_view(flat ? schema::kLayoutFlat : schema::kLayoutNHWC));
  hdf5::WriteAttribute(root, schema::kAttrNumImages, images.images);
  hdf5::WriteAttribute(root, schema::kAttrNumClasses, static_cast<int64_t>(d.classes.size()));
  hdf5::WriteAttribute(root, schema::kAttrNumSkipped, static_cast<int64_t>(d.skipped.size()));
  if (flat) {
    const FlatLayout& layout = *images.flat;
    hdf5::WriteAttribute(root, schema::kAttrChunkBytes, layout.chunk_bytes);
    hdf5::WriteAttribute(root, schema::kAttrMaxSide, layout.max_side);
    hdf5::WriteAttribute(root, schema::kAttrEncoding, std::string_view(layout.encoding.ToString()));
    if (layout.encoding.kind == StoredEncoding::Kind::kSmart) {
      hdf5::WriteAttribute(root, schema::kAttrSmartThreshold, layout.smart_threshold);
    }
  } else {
    hdf5::WriteAttribute(root, schema::kAttrChunkImages, images.chunk_images);
  }
  hdf5::WriteAttribute(root, schema::kAttrCompression,
                       std::string_view(images.compression.ToString()));
  hdf5::WriteAttribute(root, schema::kAttrShuffled, int32_t{d.shuffle_seed.has_value() ? 1 : 0});
  hdf5::WriteAttribute(root, schema::kAttrShuffleSeed, uint64_t{d.shuffle_seed.value_or(0)});
  hdf5::WriteAttribute(root, schema::kAttrSourceKind, std::string_view(d.source_kind));
  hdf5::WriteAttribute(root, schema::kAttrCreatedBy, std::string_view("h5feed " H5FEED_VERSION));
  if (d.part) {
    hdf5::WriteAttribute(root, schema::kAttrPartIndex, d.part->index);
    hdf5::WriteAttribute(root, schema::kAttrPartCount, d.part->count);
    hdf5::WriteAttribute(root, schema::kAttrConversionInputs, d.part->inputs);
    hdf5::WriteAttribute(root, schema::kAttrPartFingerprint, std::string_view(d.part->fingerprint));
  }
  if (d.merged) {
    hdf5::WriteAttribute(root, schema::kAttrMergedParts, d.merged->parts);
    hdf5::WriteAttribute(root, schema::kAttrMergeSeed, d.merged->seed);
  }
  if (!images.labelled) hdf5::WriteAttribute(root, schema::kAttrLabelled, int32_t{0});
  hdf5::WriteAttribute(root, schema::kAttrFormatVersion,
                       flat ? schema::kOwnSizeFormatVersion : schema::kFixedSizeFormatVersion);
  hdf5::WriteAttribute(root, schema::kAttrFormat, std::string_view(schema::kFormatName));
}

}  // namespace h5feed::format
