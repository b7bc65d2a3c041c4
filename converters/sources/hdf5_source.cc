#include "sources/hdf5_source.h"

#include <algorithm>
#include <filesystem>
#include <utility>
#include <vector>

#include "codec/zstd_filter.h"
#include "format/schema.h"
#include "h5feed/error.h"
#include "hdf5/error.h"
#include "hdf5/handle.h"
#include "hdf5/lock.h"
#include "hdf5/read_only_open.h"
#include "hdf5/strings.h"
#include "inspect/file_summary.h"

namespace h5feed {
namespace {

namespace fs = std::filesystem;

// More classes than this means the labels are ids, not class indices.
constexpr int64_t kMaxClasses = int64_t{1} << 20;
// HDF5's default chunk cache; kept as the floor so small chunks still share a cache line.
constexpr size_t kMinCacheBytes = size_t{1} << 20;
// A prime well above the number of chunks the cache holds, so consecutive chunks (slot =
// linear chunk index mod nslots) never collide (HDF5's H5Pset_chunk_cache advice: ~100x).
constexpr size_t kCacheSlots = 10007;

std::string DatasetList(const std::vector<inspect::DatasetSummary>& datasets) {
  if (datasets.empty()) return "none";
  std::string text;
  for (const inspect::DatasetSummary& d : datasets) {
    text += (text.empty() ? "" : "; ") + d.name + " " + d.dtype + " " + d.ShapeText();
  }
  return text;
}

std::string Strip(const std::string& name) {
  return !name.empty() && name.front() == '/' ? name.substr(1) : name;
}

const inspect::DatasetSummary* FindNamed(const std::vector<inspect::DatasetSummary>& datasets,
                                const std::string& name) {
  for (const inspect::DatasetSummary& d : datasets) {
    if (d.name == Strip(name)) return &d;
  }
  return nullptr;
}

const inspect::DatasetSummary& ChooseImages(const std::vector<inspect::DatasetSummary>& datasets,
                                   const std::string& requested, const std::string& path) {
  auto is_images = [](const inspect::DatasetSummary& d) { return d.is_uint8 && d.shape.size() == 4; };
  if (!requested.empty()) {
    const inspect::DatasetSummary* named = FindNamed(datasets, requested);
    if (named == nullptr) {
      throw Error(ErrorCode::kNotFound, "no dataset " + requested + " in " + path +
                                            "; its datasets: " + DatasetList(datasets));
    }
    if (!is_images(*named)) {
      throw Error(ErrorCode::kUnsupported,
                  "dataset " + named->name + " in " + path + " is " + named->dtype + " " +
                      named->ShapeText() + "; images must be a 4-D uint8 dataset (NHWC or NCHW)");
    }
    return *named;
  }
  if (const inspect::DatasetSummary* found = inspect::FindImageDataset(datasets)) return *found;
  std::vector<inspect::DatasetSummary> candidates;
  std::copy_if(datasets.begin(), datasets.end(), std::back_inserter(candidates), is_images);
  if (candidates.empty()) {
    throw Error(ErrorCode::kUnsupported,
                "no 4-D uint8 dataset in " + path + " to take images from; its datasets: " +
                    DatasetList(datasets) + ". Store images as uint8 (N, H, W, C) or (N, C, H, W)");
  }
  throw Error(ErrorCode::kInvalidArgument,
              "several 4-D uint8 datasets in " + path + " (" + DatasetList(candidates) +
                  ") and none is named images: name one with --images");
}

// Fails at open, not at every Read(), when a filter of the pipeline cannot run here.
void CheckFilters(hid_t dataset, const inspect::DatasetSummary& images, const std::string& path) {
  hdf5::PropertyList dcpl(H5Dget_create_plist(dataset));
  int count = dcpl ? H5Pget_nfilters(dcpl.get()) : 0;
  for (int i = 0; i < count; ++i) {
    unsigned flags = 0, config = 0;
    size_t cd_count = 0;
    H5Z_filter_t id = H5Pget_filter2(dcpl.get(), static_cast<unsigned>(i), &flags, &cd_count,
                                     nullptr, 0, nullptr, &config);
    if (H5Zfilter_avail(id) > 0) continue;
    std::string name = i < static_cast<int>(images.filters.size()) ? images.filters[i] : "";
    throw Error(ErrorCode::kUnsupported,
                "dataset " + images.name + " in " + path + " is compressed with " + name +
                    " (HDF5 filter " + std::to_string(id) + "), which this HDF5 cannot " +
                    "decode. Point HDF5_PLUGIN_PATH at a folder holding that filter's " +
                    "plugin, or rewrite the dataset with gzip (h5py: compression='gzip')");
  }
}

// A chunk cache that holds every chunk one row touches, twice over: rows read in order then
// decompress each chunk once (the default 1 MiB cache re-decompresses any larger chunk on
// every row, design.md).
hdf5::PropertyList ChunkCacheAccess(const inspect::DatasetSummary& images) {
  hdf5::PropertyList dapl(H5Pcreate(H5P_DATASET_ACCESS));
  if (images.chunk_shape.empty()) return dapl;
  size_t chunk_bytes = 1;
  size_t chunks_per_row = 1;
  for (size_t d = 0; d < images.shape.size(); ++d) {
    size_t extent = static_cast<size_t>(std::max<int64_t>(images.chunk_shape[d], 1));
    chunk_bytes *= extent;
    if (d > 0) chunks_per_row *= (static_cast<size_t>(images.shape[d]) + extent - 1) / extent;
  }
  size_t bytes = std::max(2 * chunks_per_row * chunk_bytes, kMinCacheBytes);
  H5Pset_chunk_cache(dapl.get(), kCacheSlots, bytes, 0.75);
  return dapl;
}

std::vector<int64_t> ReadLabels(hid_t file, const std::vector<inspect::DatasetSummary>& datasets,
                                const std::string& requested, int64_t count,
                                const std::string& path) {
  const inspect::DatasetSummary* labels =
      FindNamed(datasets, requested.empty() ? schema::kLabels : requested);
  if (labels == nullptr) {
    if (requested.empty()) return {};
    throw Error(ErrorCode::kNotFound, "no dataset " + requested + " in " + path +
                                          "; its datasets: " + DatasetList(datasets));
  }
  const std::vector<int64_t>& s = labels->shape;
  if (!labels->is_integer || !(s.size() == 1 || (s.size() == 2 && s[1] == 1))) {
    throw Error(ErrorCode::kUnsupported,
                "dataset " + labels->name + " in " + path + " is " + labels->dtype + " " +
                    labels->ShapeText() + "; labels must be integers of shape (N,) or (N, 1)" +
                    (requested.empty() ? ": name another dataset with --labels" : ""));
  }
  if (s[0] != count) {
    throw Error(ErrorCode::kInvalidArgument, "dataset " + labels->name + " in " + path + " holds " +
                                                 std::to_string(s[0]) + " labels for " +
                                                 std::to_string(count) +
                                                 " images; there must be one " + "label per image");
  }
  hdf5::Dataset dataset(H5Dopen2(file, labels->name.c_str(), H5P_DEFAULT));
  std::vector<int64_t> values(static_cast<size_t>(count));
  // HDF5 converts any stored integer type and byte order to int64 on the way.
  if (!dataset || (count > 0 && H5Dread(dataset.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL,
                                        H5P_DEFAULT, values.data()) < 0)) {
    throw hdf5::StackError(ErrorCode::kCorrupt, "reading labels " + labels->name, path);
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] < 0 || values[i] >= kMaxClasses) {
      throw Error(ErrorCode::kCorrupt, "label " + std::to_string(i) + " of " + labels->name +
                                           " in " + path + " is " + std::to_string(values[i]) +
                                           "; labels are class indices in [0, " +
                                           std::to_string(kMaxClasses) + ")");
    }
  }
  return values;
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
    int64_t count = 0;
    ImageShape shape;
    std::vector<int64_t> labels;
    std::vector<std::string> classes;
    std::vector<std::string> sources;  // empty: "<file name>#<row>"
  };

  explicit Hdf5Source(Parts parts)
      : p_(std::move(parts)), file_name_(fs::path(p_.path).filename().string()) {}

  ~Hdf5Source() override {
    auto lock = hdf5::Lock();
    p_.images.reset();
    p_.file.reset();
  }

  std::string_view kind() const override { return "hdf5"; }
  int64_t count() const override { return p_.count; }
  ImageShape shape() const override { return p_.shape; }
  std::vector<std::string> classes() const override { return p_.classes; }
  bool prefers_sequential_reads() const override { return p_.chunked; }

  std::string name(int64_t i) const override {
    return p_.sources.empty() ? file_name_ + "#" + std::to_string(i)
                              : p_.sources[static_cast<size_t>(i)];
  }

  SampleInfo Read(int64_t i, std::span<uint8_t> dest) const override {
    if (i < 0 || i >= p_.count) {
      throw Error(ErrorCode::kInvalidArgument, p_.path + ": row " + std::to_string(i) +
                                                   " is out of range [0, " +
                                                   std::to_string(p_.count) + ")");
    }
    const size_t bytes = static_cast<size_t>(p_.shape.bytes());
    if (dest.size() != bytes) {
      throw Error(ErrorCode::kInvalidArgument, p_.path + ": a row needs a buffer of " +
                                                   std::to_string(bytes) + " bytes, got " +
                                                   std::to_string(dest.size()));
    }
    // NCHW rows land in a per-thread buffer first: reading them strided through an HDF5
    // memory space would run HDF5's slow element-wise gather under the global lock.
    thread_local std::vector<uint8_t> planar;
    std::span<uint8_t> target = dest;
    if (p_.nchw) {
      planar.resize(bytes);
      target = planar;
    }
    ReadRow(i, target);
    if (p_.nchw) ToInterleaved(planar.data(), dest.data());
    SampleInfo info;
    info.label = p_.labels.empty() ? 0 : p_.labels[static_cast<size_t>(i)];
    info.source = name(i);
    return info;
  }

 private:
  void ReadRow(int64_t i, std::span<uint8_t> out) const {
    auto lock = hdf5::Lock();
    hdf5::SilenceErrors silence;
    hdf5::Dataspace file_space(H5Dget_space(p_.images.get()));
    hsize_t start[4] = {static_cast<hsize_t>(i), 0, 0, 0};
    hsize_t extent[4] = {1, 0, 0, 0};
    hsize_t dims[4] = {};
    bool ok = file_space && H5Sget_simple_extent_dims(file_space.get(), dims, nullptr) == 4;
    for (int d = 1; d < 4; ++d) extent[d] = dims[d];
    hsize_t memory_dims[1] = {out.size()};
    hdf5::Dataspace memory_space(H5Screate_simple(1, memory_dims, nullptr));
    ok = ok && memory_space &&
         H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, extent, nullptr) >=
             0 &&
         H5Dread(p_.images.get(), H5T_NATIVE_UINT8, memory_space.get(), file_space.get(),
                 H5P_DEFAULT, out.data()) >= 0;
    if (!ok) {
      // A chunk that fails to decompress spoils only its rows: kCorrupt lets them be skipped.
      throw hdf5::StackError(ErrorCode::kCorrupt,
                             "reading row " + std::to_string(i) + " of " + p_.images_name, p_.path);
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
  std::error_code ec;
  if (!fs::exists(path, ec)) throw Error(ErrorCode::kNotFound, path + " does not exist");
  codec::RegisterZstdFilter();

  auto lock = hdf5::Lock();
  hdf5::SilenceErrors silence;
  htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
  if (is_hdf5 < 0) throw hdf5::StackError(ErrorCode::kIo, "reading", path);
  if (is_hdf5 == 0) throw Error(ErrorCode::kCorrupt, path + " is not an HDF5 file");

  Hdf5Source::Parts parts;
  parts.path = path;
  // Reading needs no lock where the file system has none (NFS, Lustre): kAuto falls back.
  // The conversion reports no warnings, so the fallback goes unmentioned here.
  parts.file = std::move(hdf5::OpenReadOnlyFile(path, FileLocking::kAuto).file);
  hid_t file = parts.file.get();
  std::vector<inspect::DatasetSummary> datasets = inspect::ListDatasets(file);
  const inspect::DatasetSummary& images = ChooseImages(datasets, options.images, path);
  parts.images_name = images.name;
  std::string declared = inspect::DeclaredLayout(file, images.name);
  try {
    parts.nchw = inspect::DetectLayout(images.shape, declared) == "NCHW";
  } catch (const Error& e) {
    throw Error(e.code(), "dataset " + images.name + " in " + path + ": " + e.what() +
                              "; fix the attribute or remove it to infer the layout");
  }
  parts.chunked = !images.chunk_shape.empty();
  const std::vector<int64_t>& s = images.shape;
  parts.count = s[0];
  parts.shape = parts.nchw ? ImageShape{s[2], s[3], s[1]} : ImageShape{s[1], s[2], s[3]};
  if (parts.shape.bytes() == 0) {
    throw Error(ErrorCode::kUnsupported, "dataset " + images.name + " in " + path +
                                             " has empty images: shape " + images.ShapeText());
  }

  hdf5::PropertyList dapl = ChunkCacheAccess(images);
  parts.images = hdf5::Dataset(H5Dopen2(file, images.name.c_str(), dapl.get()));
  if (!parts.images) throw hdf5::StackError(ErrorCode::kCorrupt, "opening " + images.name, path);
  CheckFilters(parts.images.get(), images, path);

  parts.labels = ReadLabels(file, datasets, options.labels, parts.count, path);
  int64_t max_label = 0;
  for (int64_t label : parts.labels) max_label = std::max(max_label, label);
  const inspect::DatasetSummary* classes = FindNamed(datasets, schema::kClasses);
  if (classes != nullptr && classes->is_string && classes->shape.size() == 1) {
    parts.classes = hdf5::ReadStringDataset(file, classes->name.c_str());
    if (max_label >= static_cast<int64_t>(parts.classes.size())) {
      throw Error(ErrorCode::kCorrupt, path + " has labels up to " + std::to_string(max_label) +
                                           " but its classes dataset names only " +
                                           std::to_string(parts.classes.size()) + " classes");
    }
  } else {
    for (int64_t c = 0; c <= max_label; ++c) parts.classes.push_back(std::to_string(c));
  }
  const inspect::DatasetSummary* sources = FindNamed(datasets, schema::kSources);
  if (sources != nullptr && sources->is_string && sources->shape.size() == 1 &&
      sources->shape[0] == parts.count) {
    parts.sources = hdf5::ReadStringDataset(file, sources->name.c_str());
  }
  return std::make_unique<Hdf5Source>(std::move(parts));
}

}  // namespace h5feed
