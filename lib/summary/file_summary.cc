#include "summary/file_summary.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <type_traits>
#include <utility>

#include "format/chunk_index_dataset.h"
#include "format/schema.h"
#include "h5feed/error.h"
#include "hdf5/attribute_text.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/dataset_storage.h"
#include "hdf5/error.h"
#include "hdf5/image_dataset.h"
#include "hdf5/lock.h"
#include "hdf5/open_hdf5_file.h"
#include "hdf5/strings.h"
#include "io/resource_limits.h"
#include "summary/class_summary.h"
#include "summary/field_summary.h"
#include "summary/own_size_summary.h"

namespace h5feed::summary {
namespace {

namespace fs = std::filesystem;

// "(10, 8, 6, 3)", and "(5,)" for one dimension as Python writes it.
std::string Tuple(const std::vector<int64_t>& values) { return hdf5::ShapeText(values); }

std::string Bare(const std::string& name) {
  return !name.empty() && name.front() == '/' ? name.substr(1) : name;
}

// `stored_bytes` false leaves a chunked dataset's storage size unknown (0): HDF5 walks its whole
// chunk index for it, for a remote file a round trip per block of that index.
DatasetSummary Summarize(hid_t file, const hdf5::DatasetEntry& entry, const std::string& path,
                         bool chunked_storage) {
  DatasetSummary d;
  d.name = Bare(entry.name);
  d.shape = entry.dims;
  d.dtype = entry.dtype;
  d.is_uint8 = entry.is_uint8;
  d.is_integer = entry.is_integer;
  d.is_string = entry.is_string;
  d.chunk_shape = entry.storage.chunk;
  d.filters = hdf5::FilterNames(entry.storage.filters);
  if (chunked_storage || d.chunk_shape.empty()) {
    d.stored_bytes = hdf5::StoredBytes(hdf5::OpenDataset(file, entry.name, path).get());
  }
  if (entry.element_bytes > 0) {
    uint64_t elements = 1;
    for (int64_t n : d.shape) elements *= static_cast<uint64_t>(n);
    d.logical_bytes = elements * entry.element_bytes;
  }
  if (d.logical_bytes > 0 && d.stored_bytes > 0) {
    d.ratio = static_cast<double>(d.logical_bytes) / static_cast<double>(d.stored_bytes);
  }
  return d;
}

// A remote h5feed file's /images has its storage size from its chunk table, one read
// (Summarize left it unknown).
void StoredBytesFromTable(hid_t file, FileSummary& s) {
  DatasetSummary* images = nullptr;
  for (DatasetSummary& d : s.datasets) {
    if (d.name == format::schema::kImages) images = &d;
  }
  if (!s.is_h5feed || images == nullptr || images->chunk_shape.empty()) return;
  const int64_t chunk_rows = images->chunk_shape[0];
  const int64_t chunks = chunk_rows > 0 ? (images->shape[0] + chunk_rows - 1) / chunk_rows : 0;
  try {
    images->stored_bytes = 0;
    for (const format::schema::ChunkRecord& r : format::ReadChunkIndex(file, chunks)) {
      images->stored_bytes += r.stored_bytes;
    }
  } catch (const Error&) {
    images->stored_bytes = 0;  // a damaged table: no ratio (verify says what is wrong)
  }
  if (images->logical_bytes > 0 && images->stored_bytes > 0) {
    images->ratio =
        static_cast<double>(images->logical_bytes) / static_cast<double>(images->stored_bytes);
  }
}

void SummarizeImages(const hdf5::ImageDataset& images, FileSummary& s) {
  const hdf5::DatasetEntry& d = images.dataset;
  s.has_images = true;
  s.images = Bare(d.name);
  s.layout = images.layout;
  s.layout_guessed = images.layout_inferred;
  s.num_images = images.count;
  s.height = images.shape.height;
  s.width = images.shape.width;
  s.channels = images.shape.channels;
  const std::vector<int64_t>& chunk = d.storage.chunk;
  if (!chunk.empty()) {
    s.chunk_images = chunk[0];
    s.chunk_count = 1;
    for (size_t i = 0; i < d.dims.size(); ++i) {
      const int64_t c = chunk[i];
      s.chunk_count *= c > 0 ? (d.dims[i] + c - 1) / c : 0;
    }
  }
  std::string compression;
  for (const hdf5::Filter& filter : d.storage.filters) {
    compression += (compression.empty() ? "" : "+") + filter.name;
  }
  s.compression = compression.empty() ? "none" : compression;
  if (const DatasetSummary* summary = FindDataset(s, s.images)) {
    s.compression_ratio = summary->ratio;
  }
  if (images.layout == StoredLayout::kNHW) {
    s.notes.push_back("images of shape " + Tuple(d.dims) +
                      " are grayscale (N, H, W): read as H x W x 1");
  } else if (s.layout_guessed) {
    s.notes.push_back("layout " + std::string(ToString(s.layout)) + " inferred from the shape " +
                      Tuple(d.dims));
  }
}

// An h5feed file of images at their own size: /images is a flat byte array in chunks of C
// bytes, described image by image by the own-size table (docs/format.md, version 2).
void SummarizeOwnSizeImages(hid_t file, FileSummary& s) {
  const DatasetSummary* images = FindDataset(s, format::schema::kImages);
  const DatasetSummary* shapes = FindDataset(s, format::schema::kImageShapes);
  if (images == nullptr || images->shape.size() != 1 || shapes == nullptr ||
      shapes->shape.empty()) {
    s.notes.push_back(
        "an h5feed file of images at their own size (layout flat) without a 1-D /images and "
        "/image_shapes: the file is damaged (h5feed verify)");
    return;
  }
  try {
    s.own_size = SummarizeOwnSize(file, shapes->shape[0], images->shape[0], s.path);
  } catch (const Error& e) {
    s.notes.push_back(std::string("the table of images at their own size cannot be read: ") +
                      e.what());
    return;
  }
  OwnSizeSummary& own = *s.own_size;
  s.has_images = true;
  s.images = images->name;
  s.layout = StoredLayout::kFlat;
  s.num_images = shapes->shape[0];
  s.height = own.height.max;
  s.width = own.width.max;
  s.channels = own.gray_images == s.num_images ? 1 : 3;
  s.chunk_images = own.max_images_per_chunk;
  s.chunk_count = own.chunks;
  std::string compression;
  for (const std::string& filter : images->filters) {
    compression += (compression.empty() ? "" : "+") + filter;
  }
  s.compression = compression.empty() ? "none" : compression;
  s.compression_ratio = images->ratio;
  own.stored_bytes = images->stored_bytes;
  if (own.stored_bytes > 0) {
    own.pixel_ratio = static_cast<double>(own.pixel_bytes) / static_cast<double>(own.stored_bytes);
  }
  for (const std::string& note : own.notes) s.notes.push_back(note);
}

void SummarizeSkipped(hid_t file, FileSummary& s) {
  const DatasetSummary* sources = FindDataset(s, format::schema::kSkippedSources);
  const DatasetSummary* reasons = FindDataset(s, format::schema::kSkippedReasons);
  if (sources == nullptr || !sources->is_string) return;
  s.has_skipped = true;
  std::vector<std::string> paths = hdf5::ReadStringDataset(file, sources->name.c_str());
  std::vector<std::string> why;
  if (reasons != nullptr && reasons->is_string) {
    why = hdf5::ReadStringDataset(file, reasons->name.c_str());
  }
  for (size_t i = 0; i < paths.size(); ++i) {
    s.skipped.push_back({paths[i], i < why.size() ? why[i] : ""});
  }
}

void AddFormatNotes(FileSummary& s) {
  if (s.is_h5feed) {
    if (s.format_version > format::schema::kFormatVersion) {
      s.notes.push_back("written in h5feed format version " + std::to_string(s.format_version) +
                        "; this h5feed reads version " +
                        std::to_string(format::schema::kFormatVersion) + ": upgrade h5feed");
    }
    return;
  }
  std::string name = fs::path(s.path).filename().string();
  if (name.find(".partial-") != std::string::npos) {
    s.notes.push_back(
        "an unfinished h5feed conversion (a temporary file): it is not usable; "
        "delete it and convert again");
  } else if (s.has_images) {
    s.notes.push_back("no h5feed attributes: a foreign HDF5 file; h5feed rechunk converts it");
  }
}

}  // namespace

const DatasetSummary* FindDataset(const FileSummary& summary, std::string_view name) {
  for (const DatasetSummary& d : summary.datasets) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

FileSummary SummarizeFile(const std::string& path, const RemoteOptions& remote) {
  const Location location(path, remote);
  FileSummary s;
  s.path = location.display();
  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  // Reading needs no lock on file systems without locking (NFS, Lustre): kAuto falls back.
  hdf5::ReadOnlyFile opened = hdf5::OpenHdf5File(location, FileLocking::kAuto);
  const hdf5::File& file = opened.file;
  s.file_bytes = opened.bytes;
  const bool local = !opened.over_network;
  if (!opened.note.empty()) s.notes.push_back(opened.note);

  const std::vector<hdf5::DatasetEntry> entries = hdf5::ListDatasets(file.get(), s.path);
  for (const hdf5::DatasetEntry& entry : entries) {
    s.datasets.push_back(Summarize(file.get(), entry, s.path, local));
  }
  for (hdf5::AttributeText& attribute : hdf5::ReadAllAttributesText(file.get())) {
    s.attributes.push_back({std::move(attribute.name), std::move(attribute.value)});
  }
  s.is_h5feed = hdf5::ReadAttributeText(file.get(), format::schema::kAttrFormat) ==
                format::schema::kFormatName;
  if (s.is_h5feed) {
    std::string version = hdf5::ReadAttributeText(file.get(), format::schema::kAttrFormatVersion);
    s.format_version = static_cast<int32_t>(std::strtol(version.c_str(), nullptr, 10));
  }
  if (!local) StoredBytesFromTable(file.get(), s);
  if (s.is_h5feed && s.format_version >= format::schema::kOwnSizeFormatVersion &&
      hdf5::ReadAttributeText(file.get(), format::schema::kAttrLayout) ==
          format::schema::kLayoutFlat) {
    SummarizeOwnSizeImages(file.get(), s);
  } else {
    // What the loader, rechunk and verify would take as images (hdf5/image_dataset.h). A
    // summary reports what it finds rather than refusing the file: a problem becomes a note.
    const hdf5::ImageDatasetChoice images =
        hdf5::ChooseImageDataset(file.get(), entries, "", s.path);
    if (images.images) SummarizeImages(*images.images, s);
    if (images.problem) {
      s.notes.push_back(std::string(images.problem->what()) +
                        (images.images ? " (the loader and h5feed rechunk refuse it)" : ""));
    }
  }
  SummarizeClasses(file.get(), s);
  SummarizeSkipped(file.get(), s);
  SummarizeFields(file.get(), local, s);
  AddFormatNotes(s);
  return s;
}

}  // namespace h5feed::summary
