#include "index/foreign_index.h"

#include <algorithm>
#include <string>
#include <vector>

#include "format/schema.h"
#include "h5feed/error.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/direct_chunk.h"
#include "hdf5/error.h"
#include "hdf5/handle.h"
#include "hdf5/image_dataset.h"
#include "hdf5/lock.h"
#include "index/filter_pipeline.h"
#include "index/image_storage.h"
#include "index/label_dataset.h"
#include "make_error.h"

namespace h5feed::index {
namespace {

// Rows per block when the file does not say (contiguous and compact datasets): about 4 MiB,
// the size of an h5feed chunk, so reads are large and the cache holds many blocks.
constexpr int64_t kBlockBytes = int64_t{4} << 20;
// A block read through H5Dread when chunks cut samples spans at most one chunk's rows, and at
// most 64 MiB, so one block never needs more memory than a few h5feed chunks.
constexpr int64_t kMaxHyperslabBlockBytes = int64_t{64} << 20;

int64_t RowsFor(int64_t bytes, int64_t sample_bytes, int64_t samples) {
  const int64_t rows = std::max<int64_t>(1, (bytes + sample_bytes / 2) / sample_bytes);
  return std::min(rows, std::max<int64_t>(samples, 1));
}

// Chooses how ChunkReader reads the dataset and fills the read-path fields of `index`.
void ChooseReadPath(const ImageStorage& info, DatasetIndex& index) {
  const std::string& path = index.path;
  const int64_t sample_bytes = info.shape.bytes();
  if (info.storage == hdf5::StorageKind::kChunked && info.chunks_hold_samples &&
      CanDecode(info.filters)) {
    // No stored table, and listing chunk addresses is quadratic: read each chunk through
    // H5Dread_chunk (one B-tree lookup) and decode it outside the lock.
    index.read_path = ReadPath::kHdf5Chunk;
    index.chunk_samples = info.chunk[0];
    return;
  }
  // Contiguous data never written has no address: HDF5 returns the fill value, through the
  // hyperslab path below.
  if (info.storage == hdf5::StorageKind::kContiguous && info.address) {
    const uint64_t offset = *info.address;
    const uint64_t total = static_cast<uint64_t>(info.samples) * sample_bytes;
    const uint64_t file_bytes = index.file_bytes;
    if (offset > file_bytes || total > file_bytes - offset) {
      throw MakeError(
          ErrorCode::kCorrupt,
          "{} in {} needs bytes {} to {} but the file holds {}: it is truncated; copy it again",
          index.dataset, path, offset, offset + total, file_bytes);
    }
    const int64_t k = RowsFor(kBlockBytes, sample_bytes, info.samples);
    index.read_path = ReadPath::kContiguous;
    index.chunk_samples = k;
    for (int64_t first = 0; first < info.samples; first += k) {
      const int64_t rows = std::min(k, info.samples - first);
      index.chunks.push_back({offset + static_cast<uint64_t>(first * sample_bytes),
                              static_cast<uint64_t>(rows * sample_bytes), 0, 0});
    }
    return;
  }
  const std::vector<int> missing = FiltersHdf5Lacks(info.filters);
  if (!missing.empty()) {
    throw MakeError(
        ErrorCode::kUnsupported,
        "{} in {} is filtered with {}; filter {} is unknown to h5feed and to this HDF5. Point "
        "HDF5_PLUGIN_PATH at a folder holding its plugin, or rewrite the dataset with gzip or zstd "
        "(h5py: compression=\"gzip\")",
        index.dataset, path, PipelineText(info.filters), missing.front());
  }
  index.read_path = ReadPath::kHdf5Hyperslab;
  if (info.storage == hdf5::StorageKind::kChunked) {
    index.chunk_samples =
        std::min(info.chunk[0], RowsFor(kMaxHyperslabBlockBytes, sample_bytes, info.samples));
  } else {
    index.chunk_samples = RowsFor(kBlockBytes, sample_bytes, info.samples);
  }
}

// A chunked dataset whose writer stopped early (an h5py script that failed half way still
// closes its file cleanly) has chunks with no storage, which read as the fill value: the Loader
// would deliver them as images, so opening says so (verify lists each). One walk of HDF5's
// chunk index; a failed count says nothing, as the chunk reads will report what is wrong.
void WarnOfUnwrittenChunks(hid_t file, const ImageStorage& info, DatasetIndex& index) {
  if (info.storage != hdf5::StorageKind::kChunked || info.samples == 0) return;
  uint64_t expected = 1;
  for (size_t d = 0; d < info.dims.size() && d < info.chunk.size(); ++d) {
    const int64_t extent = std::max<int64_t>(info.chunk[d], 1);
    expected *= static_cast<uint64_t>((info.dims[d] + extent - 1) / extent);
  }
  uint64_t stored = 0;
  {
    auto lock = hdf5::Lock();
    hdf5::SilenceErrors silence;
    const hdf5::Dataset dataset = hdf5::OpenDataset(file, info.name, index.path);
    if (!hdf5::CountStoredChunks(dataset.get(), stored)) return;
  }
  if (stored >= expected) return;
  index.warnings.push_back(fmt::format(
      "{} of the {} chunks of {} in {} were never written: their rows read as HDF5's fill value "
      "({} in every pixel), not images (the program that wrote the file stopped early?); "
      "h5feed verify {} lists them",
      expected - stored, expected, info.name, index.path, info.fill_value, index.path));
}

}  // namespace

void ReadForeignIndex(hid_t file, const IndexOptions& options, DatasetIndex& index) {
  const std::string& path = index.path;
  const std::vector<hdf5::DatasetEntry> entries = hdf5::ListDatasets(file, path);
  const hdf5::ImageDataset chosen =
      hdf5::ChooseImageDataset(file, entries, options.images, path).Use();
  const ImageStorage info = ReadImageStorage(chosen);

  index.dataset = info.name;
  index.samples = info.samples;
  index.shape = info.shape;
  index.layout = info.layout;
  index.is_h5feed = false;
  index.has_checksums = false;
  index.filters = info.filters;
  index.fill_value = info.fill_value;
  index.stored_layout = chosen.layout;
  ChooseReadPath(info, index);
  WarnOfUnwrittenChunks(file, info, index);
  index.rows = RowLocator(info.samples, index.chunk_samples, info.shape);
  index.chunk_extent = index.chunk_samples;

  if (!options.labels.empty()) {
    if (hdf5::FindDataset(entries, options.labels) == nullptr) {
      throw MakeError(ErrorCode::kNotFound, "no labels dataset {} in {}; its datasets: {}",
                      options.labels, path, hdf5::ListText(entries));
    }
    index.labels = ReadLabels(file, options.labels, info.samples, path);
  } else if (hdf5::FindDataset(entries, format::schema::kLabels) != nullptr) {
    index.labels = ReadLabels(file, std::string("/") + format::schema::kLabels, info.samples, path);
  } else {
    index.labels.assign(static_cast<size_t>(info.samples), 0);
  }
  index.classes = ReadClassesIfAny(file, std::string("/") + format::schema::kClasses, path);
}

}  // namespace h5feed::index
