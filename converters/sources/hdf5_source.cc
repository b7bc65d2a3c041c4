#include "sources/hdf5_source.h"

#include <algorithm>
#include <filesystem>
#include <utility>
#include <vector>

#include "codec/checksum.h"
#include "format/box_classes_table.h"
#include "format/row_checksums_dataset.h"
#include "format/schema.h"
#include "format/skipped_lists.h"
#include "h5feed/error.h"
#include "hdf5/attributes.h"
#include "hdf5/chunk_cache.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/dataset_storage.h"
#include "hdf5/direct_chunk.h"
#include "hdf5/error.h"
#include "hdf5/handle.h"
#include "hdf5/image_dataset.h"
#include "hdf5/lock.h"
#include "hdf5/open_hdf5_file.h"
#include "hdf5/row_read.h"
#include "hdf5/strings.h"
#include "hdf5/zstd_filter.h"
#include "make_error.h"
#include "sources/hdf5_labels.h"

namespace h5feed::converters {
namespace {

namespace fs = std::filesystem;

// HDF5's default chunk cache; kept as the floor so small chunks still share a cache line.
constexpr size_t kMinCacheBytes = size_t{1} << 20;

// Fails at open, not at every Read(), when a filter of the pipeline cannot run here.
void CheckFilters(const hdf5::DatasetEntry& images, const std::string& path) {
  for (const hdf5::Filter& filter : images.storage.filters) {
    if (hdf5::FilterAvailable(filter.id)) continue;
    throw MakeError(
        ErrorCode::kUnsupported,
        "dataset {} in {} is compressed with {} (HDF5 filter {}), which this HDF5 cannot decode. "
        "Point HDF5_PLUGIN_PATH at a folder holding that filter's plugin, or rewrite the dataset "
        "with gzip (h5py: compression='gzip')",
        images.name, path, filter.name, filter.id);
  }
}

// A chunk cache that holds every chunk one row touches, twice over: rows read in order then
// decompress each chunk once (the default 1 MiB cache re-decompresses any larger chunk on
// every row: measured in hdf5_source_test, "rows read in order decode each chunk once").
hdf5::PropertyList ChunkCacheAccess(const hdf5::DatasetEntry& images) {
  const std::vector<int64_t>& chunk = images.storage.chunk;
  if (chunk.empty()) return hdf5::ChunkCacheAccess(0);
  size_t chunk_bytes = 1;
  size_t chunks_per_row = 1;
  for (size_t d = 0; d < images.dims.size(); ++d) {
    size_t extent = static_cast<size_t>(std::max<int64_t>(chunk[d], 1));
    chunk_bytes *= extent;
    if (d > 0) chunks_per_row *= (static_cast<size_t>(images.dims[d]) + extent - 1) / extent;
  }
  return hdf5::ChunkCacheAccess(std::max(2 * chunks_per_row * chunk_bytes, kMinCacheBytes));
}

// Whether the samples of `file` have labels: false for an h5feed file written without them.
bool Labelled(hid_t file) {
  return !hdf5::HasAttribute(file, format::schema::kAttrLabelled) ||
         hdf5::ReadInt64Attribute(file, format::schema::kAttrLabelled) != 0;
}

// Thread-safety: Read() may run on many threads; every HDF5 call is made under hdf5::Lock(),
// and the NCHW to NHWC transposition runs outside it.
class Hdf5Source final : public SampleSource {
 public:
  struct Parts {
    std::string path;
    hdf5::File file;
    hdf5::Dataset images;
    std::string images_name;
    bool nchw = false;
    bool chunked = false;
    int64_t chunk_rows = 0;  // rows of a chunk of the images; 0: not chunked
    size_t rank = 0;         // dimensions of the images dataset
    int64_t count = 0;
    ImageShape shape;
    std::vector<int64_t> labels;
    std::vector<std::string> classes;
    std::vector<std::string> sources;  // empty: "<file name>#<row>"
    Hdf5Fields fields;
    bool labelled = true;
    BoxClasses box_classes;  // an h5feed file's box classes' table, if any
    // An h5feed file's /row_checksums, when its /images are the images read: each row read is
    // checked against its own, so a damaged image is skipped as broken instead of written
    // into the new file under a fresh checksum that vouches for it.
    std::vector<uint64_t> row_checksums;
    std::vector<SkippedSource> skipped_earlier;  // an h5feed file's skipped lists
  };

  explicit Hdf5Source(Parts parts)
      : p_(std::move(parts)), file_name_(fs::path(p_.path).filename().string()) {}

  ~Hdf5Source() override {
    auto lock = hdf5::Lock();
    p_.fields.Close();
    p_.images.reset();
    p_.file.reset();
  }

  std::string_view kind() const override { return "hdf5"; }
  int64_t count() const override { return p_.count; }
  ImageShape shape() const override { return p_.shape; }
  std::vector<std::string> classes() const override { return p_.classes; }
  std::vector<FieldSpec> fields() const override { return p_.fields.specs(); }
  bool labelled() const override { return p_.labelled; }
  BoxClasses box_classes() const override { return p_.box_classes; }
  // A boxes field is one its dataset's h5feed_field attribute declares: an h5feed file's, in
  // pixels by its format (docs/format.md), checked when that file was written.
  BoxCoordinates box_coordinates() const override { return BoxCoordinates::kPixels; }
  std::vector<std::string> notes() const override { return p_.fields.notes(); }
  std::vector<SkippedSource> skipped_earlier() const override { return p_.skipped_earlier; }
  bool prefers_sequential_reads() const override { return p_.chunked; }

  std::string name(int64_t i) const override {
    return p_.sources.empty() ? file_name_ + "#" + std::to_string(i)
                              : p_.sources[static_cast<size_t>(i)];
  }

  SampleInfo Read(int64_t i, SampleDestination& dest) const override {
    if (i < 0 || i >= p_.count) {
      throw MakeError(ErrorCode::kInvalidArgument, "{}: row {} is out of range [0, {})", p_.path, i,
                      p_.count);
    }
    const std::span<uint8_t> pixels = dest.MemoryFor(p_.shape);
    // NCHW rows land in a per-thread buffer first: reading them strided through an HDF5
    // memory space would run HDF5's slow element-wise gather under the global lock.
    thread_local std::vector<uint8_t> planar;
    std::span<uint8_t> target = pixels;
    if (p_.nchw) {
      planar.resize(pixels.size());
      target = planar;
    }
    ReadRow(i, target);
    CheckRow(i, target);
    if (p_.nchw) ToInterleaved(planar.data(), pixels.data());
    SampleInfo info;
    info.label = p_.labels.empty() ? 0 : p_.labels[static_cast<size_t>(i)];
    info.source = name(i);
    info.fields = p_.fields.Read(i);
    return info;
  }

 private:
  void ReadRow(int64_t i, std::span<uint8_t> out) const {
    auto lock = hdf5::Lock();
    hdf5::SilenceErrors silence;
    if (p_.chunk_rows > 0) CheckWritten(i);
    // Row i whole: (1, H, W, C), (1, C, H, W) or (1, H, W).
    if (!hdf5::ReadRows(p_.images.get(), i, 1, out)) {
      // A chunk that fails to decompress spoils only its rows: kCorrupt lets them be skipped.
      throw hdf5::StackError(ErrorCode::kCorrupt,
                             fmt::format("reading row {} of {}", i, p_.images_name), p_.path);
    }
  }

  // Row i's bytes as stored against the file's checksum of them (docs/format.md,
  // "Checksums"): kCorrupt, as a chunk that fails to decompress, so the row is skipped and
  // recorded (or, with --strict, stops the conversion).
  void CheckRow(int64_t i, std::span<const uint8_t> stored) const {
    if (p_.row_checksums.empty()) return;
    const uint64_t expected = p_.row_checksums[static_cast<size_t>(i)];
    const uint64_t computed = codec::RowChecksum(stored);
    if (computed == expected) return;
    throw MakeError(ErrorCode::kCorrupt,
                    "row {} of {} in {} fails its checksum (stored {:#018x}, computed {:#018x}): "
                    "the file is damaged there; h5feed verify {} lists every bad chunk and image",
                    i, p_.images_name, p_.path, expected, computed, p_.path);
  }

  // A chunk with no storage reads as the fill value: an h5py script that failed half way
  // through its images leaves such chunks in a file it closed cleanly. Their rows are not
  // images, and are skipped as a chunk that fails to decompress is (kCorrupt), so the new
  // file's checksums never vouch for them. Only the chunk holding the row's first pixels is
  // asked: one search of HDF5's chunk index, as H5Dread makes.
  void CheckWritten(int64_t i) const {
    std::vector<uint64_t> offset(p_.rank, 0);
    offset[0] = static_cast<uint64_t>(i - i % p_.chunk_rows);
    hdf5::ChunkPlace place;
    if (!hdf5::MeasureChunk(p_.images.get(), offset, place)) {
      throw hdf5::StackError(hdf5::ReadFailureCode(),
                             fmt::format("looking up the chunk of row {} of {}", i, p_.images_name),
                             p_.path);
    }
    if (!place.stored || place.stored_bytes == 0) {  // 0: a dataset with no chunk index yet
      throw MakeError(ErrorCode::kCorrupt,
                      "row {} of {} in {} was never written: the chunk holding it has no data in "
                      "the file, so HDF5 would give its fill value for every pixel (the program "
                      "that wrote the file stopped before it); write it, or leave it out",
                      i, p_.images_name, p_.path);
    }
  }

  void ToInterleaved(const uint8_t* planar, uint8_t* out) const {
    const int64_t c = p_.shape.channels;
    const int64_t plane = p_.shape.height * p_.shape.width;
    for (int64_t k = 0; k < c; ++k) {
      const uint8_t* from = planar + k * plane;
      for (int64_t p = 0; p < plane; ++p) out[p * c + k] = from[p];
    }
  }

  Parts p_;
  std::string file_name_;
};

}  // namespace

std::unique_ptr<SampleSource> OpenHdf5(const std::string& path, const Hdf5SourceOptions& options) {
  hdf5::RegisterZstdFilter();

  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  Hdf5Source::Parts parts;
  parts.path = path;
  // Reading needs no lock where the file system has none (NFS, Lustre): kAuto falls back.
  // The conversion reports no warnings, so the fallback goes unmentioned here.
  parts.file = std::move(hdf5::OpenHdf5File(Location(path), FileLocking::kAuto).file);
  hid_t file = parts.file.get();
  const std::vector<hdf5::DatasetEntry> datasets = hdf5::ListDatasets(file, path);
  // The loader's rule (hdf5/image_dataset.h): rechunk takes the images the loader would read.
  const hdf5::ImageDataset chosen =
      hdf5::ChooseImageDataset(file, datasets, options.images, path).Use();
  const hdf5::DatasetEntry& images = chosen.dataset;
  parts.images_name = images.name;
  parts.nchw = chosen.layout == StoredLayout::kNCHW;
  parts.chunked = !images.storage.chunk.empty();
  parts.chunk_rows = parts.chunked ? images.storage.chunk[0] : 0;
  parts.rank = images.dims.size();
  parts.count = chosen.count;
  parts.shape = chosen.shape;

  hdf5::PropertyList dapl = ChunkCacheAccess(images);
  parts.images = hdf5::OpenDataset(file, images.name, path, dapl.get());
  CheckFilters(images, path);

  parts.labelled = Labelled(file);
  if (parts.labelled) {
    Hdf5Labels labels = ReadHdf5Labels(file, datasets, options.labels, parts.count, path);
    parts.labels = std::move(labels.labels);
    parts.classes = std::move(labels.classes);
  }
  const hdf5::DatasetEntry* sources = hdf5::FindDataset(datasets, format::schema::kSources);
  if (sources != nullptr && sources->is_string && sources->dims.size() == 1 &&
      sources->dims[0] == parts.count) {
    parts.sources = hdf5::ReadStringDataset(file, sources->name.c_str());
  }
  const std::string labels_name = options.labels.empty() ? format::schema::kLabels : options.labels;
  parts.box_classes = format::ReadBoxClasses(file, path);
  if (images.name == std::string("/") + format::schema::kImages &&
      hdf5::HasAttribute(file, format::schema::kAttrFormat)) {
    parts.row_checksums =
        format::ReadRowChecksums(file, parts.count).value_or(std::vector<uint64_t>{});
    parts.skipped_earlier = format::ReadSkippedLists(file, path);
  }
  parts.fields = Hdf5Fields::Open(file, datasets, parts.count, {images.name, labels_name},
                                  options.fields, path);
  return std::make_unique<Hdf5Source>(std::move(parts));
}

}  // namespace h5feed::converters
