// CheckH5feedMetadata and CheckLabels (metadata_verification.h).

#include "verify/metadata_verification.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/schema.h"
#include "format/values_checksum.h"
#include "h5feed/error.h"
#include "h5feed/image_encoding.h"
#include "hdf5/attributes.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/error.h"
#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "hdf5/open_hdf5_file.h"
#include "hdf5/strings.h"
#include "index/h5feed_index.h"
#include "index/image_storage.h"
#include "index/stored_chunk_table.h"
#include "verify/checked_count.h"
#include "verify/chunk_verification.h"

namespace h5feed::verify {
namespace {

using index::DatasetIndex;

// Bad labels listed one by one up to this many; the rest are counted.
constexpr int64_t kLabelsListed = 10;

// Rows of dataset `name` (its first dimension); -1 when it does not exist.
int64_t RowsOf(hid_t file, const char* name) {
  const hdf5::Dataset dataset = hdf5::TryOpenDataset(file, name);
  if (!dataset) return -1;
  hdf5::DatasetEntry entry = hdf5::DescribeDataset(dataset.get(), name);
  return entry.dims.empty() ? 1 : entry.dims[0];
}

void CheckCount(hid_t file, const char* dataset, int64_t expected, const std::string& what,
                VerificationReport& report) {
  const int64_t rows = RowsOf(file, dataset);
  if (rows == expected) return;
  report.problems.push_back(
      std::string("/") + dataset +
      (rows < 0 ? " is missing" : " holds " + std::to_string(rows) + " rows") + " for " +
      std::to_string(expected) + " " + what);
}

// Whether image `image` is stored as the encoding attribute asks ("raw", "jpeg:Q", "smart:Q"
// with `smart_threshold`: the writer's choice of each image's encoding, StoredEncoding);
// nullopt for an attribute of another form.
std::optional<bool> AsAsked(std::string_view encoding, int64_t smart_threshold,
                            const StoredRow& image) {
  const bool jpeg = image.encoding == ImageEncoding::kJpeg;
  if (encoding == "raw") return !jpeg;
  if (encoding.starts_with("jpeg:")) return jpeg;
  if (encoding.starts_with("smart:")) return jpeg == (image.shape.bytes() > smart_threshold);
  return std::nullopt;
}

// Files with an encoding attribute (images at their own size): every image stored as it says
// (docs/format.md, "Encodings"), and max_side, when set, caps every image's longer side.
void CheckEncodingAttribute(const DatasetIndex& index, hid_t file, VerificationReport& report) {
  int64_t smart_threshold = 0;
  if (index.encoding.starts_with("smart:")) {
    try {
      smart_threshold = hdf5::ReadInt64Attribute(file, format::schema::kAttrSmartThreshold);
    } catch (const Error& e) {
      report.problems.push_back(std::string("attribute smart_threshold: ") + e.what());
      return;
    }
  }
  int64_t unlike = 0, first_unlike = -1, oversize = 0, first_oversize = -1;
  for (int64_t row = 0; row < index.samples; ++row) {
    const StoredRow image = index.rows.at(row);
    const std::optional<bool> as_asked = AsAsked(index.encoding, smart_threshold, image);
    if (!as_asked) {
      report.problems.push_back("attribute encoding is \"" + index.encoding +
                                "\", not raw, jpeg:Q or smart:Q");
      return;
    }
    if (!*as_asked && unlike++ == 0) first_unlike = row;
    if (index.max_side > 0 && std::max(image.shape.height, image.shape.width) > index.max_side &&
        oversize++ == 0) {
      first_oversize = row;
    }
  }
  if (unlike > 0) {
    report.problems.push_back(std::to_string(unlike) +
                              " images are not stored as attribute encoding \"" + index.encoding +
                              "\" says (the first: row " + std::to_string(first_unlike) + ")");
  }
  if (oversize > 0) {
    const ImageShape shape = index.rows.at(first_oversize).shape;
    report.problems.push_back(
        std::to_string(oversize) + " images have a side longer than " + "attribute max_side " +
        std::to_string(index.max_side) + " (the first: row " + std::to_string(first_oversize) +
        ", " + std::to_string(shape.height) + "x" + std::to_string(shape.width) + ")");
  }
}

// The labels and every string list against their checksums (format/values_checksum.h),
// where the file has them.
void CheckValuesChecksums(hid_t file, const DatasetIndex& index, VerificationReport& report) {
  std::vector<std::string> checked;
  const auto check = [&](const char* name, const auto& read) {
    try {
      // The values are read only where there is a checksum to hold them against.
      const std::optional<uint64_t> stored = format::StoredValuesChecksum(file, name);
      if (!stored) return;
      if (*stored != format::ValuesChecksum(read())) {
        report.problems.push_back(format::ValuesMismatchText(name) +
                                  ": changed or damaged after conversion");
      }
      checked.push_back(std::string("/") + name);
    } catch (const Error& e) {
      report.problems.push_back(std::string("/") + name + ": " + e.what());
    }
  };
  if (index.labelled) check(format::schema::kLabels, [&] { return index.labels; });
  for (const char* name : {format::schema::kClasses, format::schema::kSources,
                           format::schema::kSkippedSources, format::schema::kSkippedReasons}) {
    check(name, [&] { return hdf5::ReadStringDataset(file, name); });
  }
  if (checked.empty()) {
    report.not_checked.push_back(
        "labels and string lists against checksums: the file was written before they had any");
    return;
  }
  std::string names;
  for (const std::string& name : checked) names += (names.empty() ? "" : ", ") + name;
  report.checked.push_back(names + ": against their checksums (xxh3_64)");
}

}  // namespace

// The table against HDF5's chunk index, every row; the attributes and the string lists
// against the counts. h5feed files only.
void CheckH5feedMetadata(const DatasetIndex& index, FileLocking locking,
                         VerificationReport& report) {
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  hdf5::ReadOnlyFile opened = hdf5::OpenHdf5File(index.location, locking);
  const hid_t file = opened.file.get();
  const hdf5::Dataset images =
      hdf5::OpenDataset(file, std::string("/") + format::schema::kImages, index.path);
  index::StoredTable table;  // only what TableRowMismatch reads: the dataset and its extent
  table.dataset = std::string("/") + format::schema::kImages;
  table.extent = index.chunk_extent;
  for (int64_t c = 0; c < index.chunk_count(); ++c) {
    std::string mismatch;
    try {
      mismatch = index::TableRowMismatch(images.get(), table, c,
                                         index.chunks[static_cast<size_t>(c)], index.path);
    } catch (const Error& e) {
      mismatch = e.what();
    }
    if (!mismatch.empty()) {
      report.bad_chunks.push_back(
          ChunkProblemAt(index, c, "the stored chunk table does not match HDF5's: " + mismatch));
    }
  }
  report.checked.push_back("chunk table: " + All(index.chunk_count(), " row") +
                           " against HDF5's own chunk index");

  const auto attribute_text = [&](const char* name) -> std::string {
    try {
      return hdf5::ReadStringAttribute(file, name);
    } catch (const Error& e) {
      report.problems.push_back(std::string("attribute ") + name + ": " + e.what());
      return {};
    }
  };
  const std::string layout = attribute_text(format::schema::kAttrLayout);
  const std::string_view expected_layout = ToString(index.stored_layout);
  if (!layout.empty() && layout != expected_layout) {
    report.problems.push_back("attribute layout is \"" + layout + "\", but /images is stored as " +
                              std::string(expected_layout));
  }
  if (!index.encoding.empty()) CheckEncodingAttribute(index, file, report);
  const std::string compression = attribute_text(format::schema::kAttrCompression);
  if (!compression.empty() && compression != index::PipelineText(index.filters)) {
    report.problems.push_back("attribute compression is \"" + compression +
                              "\" but /images is filtered with " +
                              index::PipelineText(index.filters));
  }
  CheckCount(file, format::schema::kSources, index.samples, "images", report);
  int64_t skipped = -1;
  try {
    skipped = hdf5::ReadInt64Attribute(file, format::schema::kAttrNumSkipped);
  } catch (const Error& e) {
    report.problems.push_back(std::string("attribute num_skipped: ") + e.what());
  }
  if (skipped >= 0) {
    CheckCount(file, format::schema::kSkippedSources, skipped, "skipped sources (num_skipped)",
               report);
    CheckCount(file, format::schema::kSkippedReasons, skipped, "skipped sources (num_skipped)",
               report);
  }
  CheckValuesChecksums(file, index, report);
  // The attributes that say how chunks hold images, which the index checked against /images.
  const std::string chunking = index.encoding.empty()
                                   ? "chunk_images"
                                   : "chunk_bytes, max_side, encoding (against every image's)";
  report.checked.push_back(
      "attributes: format name and version, layout, compression, num_images, " + chunking +
      ", num_classes, num_skipped; /sources, /classes and the skipped lists "
      "against them");
}

void NameBadImageSources(const DatasetIndex& index, FileLocking locking,
                         VerificationReport& report) {
  if (report.bad_images.empty()) return;
  std::vector<std::string> sources;
  {
    auto lock = hdf5::Lock();
    hdf5::SilenceErrors silence;
    const hdf5::ReadOnlyFile opened = hdf5::OpenHdf5File(index.location, locking);
    if (RowsOf(opened.file.get(), format::schema::kSources) != index.samples) return;
    try {
      sources = hdf5::ReadStringDataset(opened.file.get(), format::schema::kSources);
    } catch (const Error&) {
      return;  // a /sources that does not read is a problem CheckCount and HDF5's own report
    }
  }
  for (ImageProblem& problem : report.bad_images) {
    if (problem.row >= 0 && problem.row < static_cast<int64_t>(sources.size())) {
      problem.source = sources[static_cast<size_t>(problem.row)];
    }
  }
}

void CheckLabels(const DatasetIndex& index, VerificationReport& report) {
  if (!index.labelled) {
    report.checked.push_back("labels: none, as the file says (labelled = 0)");
    return;
  }
  const int64_t classes = static_cast<int64_t>(index.classes.size());
  if (classes == 0) {
    report.not_checked.push_back("labels against classes: the file names no classes");
    return;
  }
  int64_t bad = 0;
  for (size_t row = 0; row < index.labels.size(); ++row) {
    const int64_t label = index.labels[row];
    if (label >= 0 && label < classes) continue;
    if (++bad <= kLabelsListed) {
      report.problems.push_back("label " + std::to_string(label) + " of row " +
                                std::to_string(row) + " is outside the " + std::to_string(classes) +
                                " classes");
    }
  }
  if (bad > kLabelsListed) {
    report.problems.push_back(std::to_string(bad - kLabelsListed) +
                              " more labels are outside the classes");
  }
  report.checked.push_back("labels: " + All(static_cast<int64_t>(index.labels.size())) +
                           " in [0, " + std::to_string(classes) + ")");
}

}  // namespace h5feed::verify
