#include "index/h5feed_index.h"

#include <optional>
#include <string>
#include <vector>

#include "format/row_checksums_dataset.h"
#include "format/schema.h"
#include "format/values_checksum.h"
#include "h5feed/error.h"
#include "hdf5/attributes.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/error.h"
#include "hdf5/handle.h"
#include "hdf5/image_dataset.h"
#include "index/field_specs.h"
#include "index/filter_pipeline.h"
#include "index/image_storage.h"
#include "index/label_dataset.h"
#include "index/own_size_index.h"
#include "index/stored_chunk_table.h"
#include "make_error.h"

namespace h5feed::index {
namespace {

const std::string kImagesName = std::string("/") + format::schema::kImages;

int64_t ReadVersion(hid_t file, const std::string& path) {
  try {
    return hdf5::ReadInt64Attribute(file, format::schema::kAttrFormatVersion);
  } catch (const Error& e) {
    throw MakeError(
        ErrorCode::kCorrupt,
        "{} says it is an h5feed file but its format version cannot be read ({}): the file is "
        "damaged; convert the source again",
        path, e.what());
  }
}

void RequireAttribute(hid_t file, const char* name, int64_t expected, const std::string& path,
                      const char* source = "/images") {
  const int64_t value = hdf5::ReadInt64Attribute(file, name);
  if (value != expected) {
    throw MakeError(
        ErrorCode::kCorrupt,
        "{}: attribute {} is {} but {} says {}: the file is damaged; convert the source again",
        path, name, value, source, expected);
  }
}

// The root attribute `labelled`: absent (every file written before it existed) or 1 for a
// file with labels, 0 for one without.
bool ReadLabelled(hid_t file, const std::string& path) {
  if (!hdf5::HasAttribute(file, format::schema::kAttrLabelled)) return true;
  const int64_t labelled = hdf5::ReadInt64Attribute(file, format::schema::kAttrLabelled);
  if (labelled != 0 && labelled != 1) {
    throw MakeError(ErrorCode::kCorrupt,
                    "{}: attribute {} is {}, neither 1 (labelled) nor 0 (no labels): the file is "
                    "damaged; convert the source again",
                    path, format::schema::kAttrLabelled, labelled);
  }
  return labelled == 1;
}

// The labels (when read from /labels, not a dataset the caller named) and class names against
// their checksums (format/values_checksum.h): a label changed to another valid class would
// train silently.
void CheckLabelsAndClasses(hid_t file, const DatasetIndex& index, bool labels_from_file) {
  std::string mismatch;
  if (index.labelled && labels_from_file) {
    mismatch = format::ValuesMismatch(file, format::schema::kLabels, index.labels);
  }
  if (mismatch.empty()) {
    mismatch = format::ValuesMismatch(file, format::schema::kClasses, index.classes);
  }
  if (!mismatch.empty()) {
    throw MakeError(ErrorCode::kCorrupt,
                    "{} in {}: they were changed or damaged after conversion; convert the file "
                    "again",
                    mismatch, index.path);
  }
}

// Labels name classes: with class names stored, every label must index one (the Writer's
// rule). A label past them would make a trainer's loss index out of range: on a GPU, an
// assertion far from here.
void CheckLabelsInRange(const DatasetIndex& index) {
  const int64_t classes = static_cast<int64_t>(index.classes.size());
  if (classes == 0) return;  // the Writer allows labels without names (ids, say)
  for (size_t row = 0; row < index.labels.size(); ++row) {
    const int64_t label = index.labels[row];
    if (label >= 0 && label < classes) continue;
    throw MakeError(
        ErrorCode::kCorrupt,
        "label {} of row {} in {} is outside the file's {} classes: the file is damaged; h5feed "
        "verify lists every bad label",
        label, row, index.path, classes);
  }
}

// /images of a version 1 file: (N, H, W, C) in chunks of (K, H, W, C).
ImageStorage ReadFixedSizeImages(hid_t file, hid_t images, const std::string& path) {
  const std::vector<hdf5::DatasetEntry> entries = {hdf5::DescribeDataset(images, kImagesName)};
  const hdf5::ImageDataset chosen =
      hdf5::ChooseImageDataset(file, entries, kImagesName, path).Use();
  ImageStorage info = ReadImageStorage(chosen);
  if (info.dims.size() != 4 || info.layout != Layout::kNHWC ||
      info.storage != hdf5::StorageKind::kChunked || !info.chunks_hold_samples) {
    throw MakeError(
        ErrorCode::kCorrupt,
        "/images in {} has shape {} and chunks {}; h5feed format 1 stores (N, H, W, C) in chunks "
        "of (K, H, W, C): the file was changed after conversion; run h5feed rechunk on it",
        path, hdf5::ShapeText(info.dims), hdf5::ShapeText(info.chunk));
  }
  return info;
}

// /images of a version 2 file: B bytes in chunks of C (the chunk_bytes attribute).
ImageStorage ReadOwnSizeImages(hid_t file, hid_t images, const std::string& path) {
  hdf5::ImageDataset flat;
  flat.dataset = hdf5::DescribeDataset(images, kImagesName);
  ImageStorage info = ReadImageStorage(flat);
  const int64_t chunk_bytes = hdf5::ReadInt64Attribute(file, format::schema::kAttrChunkBytes);
  if (!flat.dataset.is_uint8 || info.dims.size() != 1 ||
      info.storage != hdf5::StorageKind::kChunked || info.chunk.size() != 1 ||
      info.chunk[0] != chunk_bytes || info.dims[0] % chunk_bytes != 0) {
    throw MakeError(
        ErrorCode::kCorrupt,
        "/images in {} is {} of shape {} in chunks {}; an h5feed file of images at their own size "
        "stores whole chunks of {} bytes (its chunk_bytes): the file was changed after conversion "
        "or is damaged; convert the source again",
        path, flat.dataset.dtype, hdf5::ShapeText(info.dims), hdf5::ShapeText(info.chunk),
        chunk_bytes);
  }
  return info;
}

// The stored table of /images (`images`) in `file`: `chunks` chunks of `chunk_bytes` decoded
// bytes, chunk c at c x `extent`.
std::vector<ChunkLocation> ReadImagesTable(hid_t file, hid_t images, int64_t chunks,
                                           int64_t chunk_bytes, int64_t extent,
                                           const IndexOptions& options, const DatasetIndex& index) {
  return ReadCheckedChunkTable(
      file, images,
      StoredTable{format::schema::kChunkIndex, kImagesName, chunks, chunk_bytes, extent},
      options.verify_table_entries, index);
}

// /images and what locates its rows in a version 1 file: N images of H x W x C in chunks of
// K; files written before /row_checksums existed have none, and their chunks are checked
// instead.
ImageStorage ReadFixedSizeLayout(hid_t file, hid_t images, const IndexOptions& options,
                                 DatasetIndex& index) {
  const std::string& path = index.path;
  ImageStorage info = ReadFixedSizeImages(file, images, path);
  const int64_t k = info.chunk[0];
  RequireAttribute(file, format::schema::kAttrChunkImages, k, path);
  RequireAttribute(file, format::schema::kAttrNumImages, info.samples, path);
  index.chunks = ReadImagesTable(file, images, (info.samples + k - 1) / k, k * info.shape.bytes(),
                                 k, options, index);
  index.samples = info.samples;
  index.shape = info.shape;
  index.chunk_samples = k;
  index.chunk_extent = k;
  index.stored_layout = StoredLayout::kNHWC;
  index.rows = RowLocator(info.samples, k, info.shape);
  index.row_checksums =
      format::ReadRowChecksums(file, info.samples).value_or(std::vector<uint64_t>{});
  return info;
}

// The same of a version 2 file of images at their own size: B bytes in chunks of C, each
// image located by the per-image table, each checked by /row_checksums as stored.
ImageStorage ReadFlatLayout(hid_t file, hid_t images, const IndexOptions& options,
                            DatasetIndex& index) {
  const std::string& path = index.path;
  ImageStorage info = ReadOwnSizeImages(file, images, path);
  const int64_t samples = hdf5::ReadInt64Attribute(file, format::schema::kAttrNumImages);
  const int64_t chunk_bytes = info.chunk[0];
  const int64_t chunks = info.dims[0] / chunk_bytes;
  index.chunks = ReadImagesTable(file, images, chunks, chunk_bytes, chunk_bytes, options, index);
  index.samples = samples;
  index.chunk_extent = chunk_bytes;
  index.stored_layout = StoredLayout::kFlat;
  ReadOwnSizeTable(file, samples, chunk_bytes, chunks, index);
  std::optional<std::vector<uint64_t>> checksums = format::ReadRowChecksums(file, samples);
  if (!checksums) {
    throw MakeError(
        ErrorCode::kCorrupt,
        "{} holds images at their own size without /{}: the file is damaged; convert the source "
        "again",
        path, format::schema::kRowChecksums);
  }
  index.row_checksums = std::move(*checksums);
  return info;
}

}  // namespace

void ReadH5feedIndex(hid_t file, const IndexOptions& options, DatasetIndex& index) {
  const std::string& path = index.path;
  const int64_t version = ReadVersion(file, path);
  if (version > format::schema::kFormatVersion) {
    throw MakeError(
        ErrorCode::kUnsupported,
        "{} is in h5feed format version {}; this h5feed reads versions up to {}. Upgrade h5feed to "
        "read it",
        path, version, format::schema::kFormatVersion);
  }
  if (version < 1) {
    throw MakeError(ErrorCode::kCorrupt,
                    "{} says h5feed format version {}, which never existed: the file is damaged",
                    path, version);
  }
  if (!hdf5::LinkExists(file, format::schema::kImages)) {
    throw MakeError(
        ErrorCode::kCorrupt,
        "{} is an h5feed file without /images: the file is damaged; convert the source again",
        path);
  }
  const hdf5::Dataset images = hdf5::OpenDataset(file, kImagesName, path);
  const bool flat =
      version >= format::schema::kOwnSizeFormatVersion &&
      hdf5::ReadStringAttribute(file, format::schema::kAttrLayout) == format::schema::kLayoutFlat;
  const ImageStorage info = flat ? ReadFlatLayout(file, images.get(), options, index)
                                 : ReadFixedSizeLayout(file, images.get(), options, index);
  if (!CanDecode(info.filters)) {
    throw MakeError(
        ErrorCode::kUnsupported,
        "/images in {} is filtered with {}, which the h5feed format does not use; run h5feed "
        "rechunk on it",
        path, PipelineText(info.filters));
  }
  index.dataset = kImagesName;
  index.layout = Layout::kNHWC;
  index.is_h5feed = true;
  index.read_path = ReadPath::kStoredTable;
  index.has_checksums = true;
  index.filters = info.filters;
  index.fill_value = info.fill_value;
  // A file written without labels has no /labels; labels named by the caller are read anyway.
  index.labelled = !options.labels.empty() || ReadLabelled(file, path);
  if (index.labelled) {
    const std::string labels =
        options.labels.empty() ? std::string("/") + format::schema::kLabels : options.labels;
    index.labels = ReadLabels(file, labels, index.samples, path);
  }
  index.classes = ReadClassesIfAny(file, std::string("/") + format::schema::kClasses, path);
  RequireAttribute(file, format::schema::kAttrNumClasses,
                   static_cast<int64_t>(index.classes.size()), path, "/classes");
  if (options.check_labels) {
    CheckLabelsInRange(index);
    CheckLabelsAndClasses(file, index, options.labels.empty());
  }
  index.fields = ReadFieldSpecs(file, index.samples, path);
}

}  // namespace h5feed::index
