#include "sources/encoded_hdf5_source.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "format/schema.h"
#include "h5feed/error.h"
#include "hdf5/attributes.h"
#include "hdf5/byte_sequences.h"
#include "hdf5/dataset_listing.h"
#include "hdf5/error.h"
#include "hdf5/handle.h"
#include "hdf5/image_dataset.h"
#include "hdf5/lock.h"
#include "hdf5/open_hdf5_file.h"
#include "hdf5/zstd_filter.h"
#include "make_error.h"
#include "sources/hdf5_labels.h"
#include "sources/own_size_file_source.h"

namespace h5feed::converters {
namespace {

constexpr std::string_view kImagesName = "images";

// Whether `entry` is a 1-D dataset whose elements are variable-length sequences of bytes
// (h5py.vlen_dtype(np.uint8), or of int8: bytes either way).
bool HoldsEncoded(hid_t file, const hdf5::DatasetEntry& entry) {
  if (entry.dims.size() != 1) return false;
  const hdf5::Dataset dataset = hdf5::TryOpenDataset(file, entry.name);
  return dataset && hdf5::HoldsByteSequences(dataset.get());
}

// The dataset of encoded images by EncodedHdf5Options::images's rule, or nullptr.
const hdf5::DatasetEntry* FindEncoded(hid_t file, const std::vector<hdf5::DatasetEntry>& datasets,
                                      const std::string& requested, const std::string& path) {
  if (!requested.empty() || hdf5::FindDataset(datasets, kImagesName) != nullptr) {
    const hdf5::DatasetEntry* named =
        hdf5::FindDataset(datasets, requested.empty() ? kImagesName : requested);
    return named != nullptr && HoldsEncoded(file, *named) ? named : nullptr;
  }
  // An array of pixels the loader would read comes first, as it did before encoded images.
  if (hdf5::ChooseImageDataset(file, datasets, "", path).images) return nullptr;
  std::vector<const hdf5::DatasetEntry*> candidates;
  for (const hdf5::DatasetEntry& entry : datasets) {
    if (HoldsEncoded(file, entry)) candidates.push_back(&entry);
  }
  if (candidates.size() > 1) {
    std::string names;
    for (const hdf5::DatasetEntry* c : candidates) names += (names.empty() ? "" : ", ") + c->name;
    throw MakeError(
        ErrorCode::kInvalidArgument,
        "{} holds several datasets of encoded images ({}) and none is named images: name the one "
        "to use (h5feed rechunk --images NAME)",
        path, names);
  }
  return candidates.empty() ? nullptr : candidates.front();
}

// The file open, its datasets, and the encoded images among them (or nullptr).
struct OpenedFile {
  hdf5::File file;
  std::vector<hdf5::DatasetEntry> datasets;
  const hdf5::DatasetEntry* encoded = nullptr;
};

// Call under hdf5::Lock().
OpenedFile Open(const std::string& path, const std::string& images) {
  hdf5::RegisterZstdFilter();
  hdf5::SilenceErrors silence;
  OpenedFile opened;
  // Reading needs no lock where the file system has none (NFS, Lustre): kAuto falls back.
  opened.file = std::move(hdf5::OpenHdf5File(Location(path), FileLocking::kAuto).file);
  opened.datasets = hdf5::ListDatasets(opened.file.get(), path);
  opened.encoded = FindEncoded(opened.file.get(), opened.datasets, images, path);
  return opened;
}

class EncodedHdf5Source final : public SampleSource {
 public:
  struct Parts {
    std::string path;
    hdf5::File file;
    hdf5::Dataset images;
    std::string element_prefix;  // "images[": the dataset's name, without the leading '/'
    int64_t count = 0;
    bool chunked = false;
    std::vector<int64_t> labels;
    std::vector<std::string> classes;
    Hdf5Fields fields;
    EncodedHdf5Options options;
  };

  EncodedHdf5Source(Parts parts, std::unique_ptr<MemoryBudget> own_budget)
      : p_(std::move(parts)),
        own_budget_(std::move(own_budget)),
        reader_(*memory_budget(), p_.options.max_pixels) {}

  ~EncodedHdf5Source() override {
    auto lock = hdf5::Lock();
    p_.fields.Close();
    p_.images.reset();
    p_.file.reset();
  }

  std::string_view kind() const override { return "hdf5"; }
  int64_t count() const override { return p_.count; }
  ImageShape shape() const override { return largest_; }
  std::vector<std::string> classes() const override { return p_.classes; }
  std::vector<FieldSpec> fields() const override { return p_.fields.specs(); }
  std::vector<std::string> notes() const override { return p_.fields.notes(); }
  bool own_size() const override { return true; }
  int64_t max_side() const override { return p_.options.max_side; }
  bool prefers_sequential_reads() const override { return p_.chunked; }
  MemoryBudget* memory_budget() const override {
    return p_.options.memory ? p_.options.memory : own_budget_.get();
  }
  std::string name(int64_t i) const override { return p_.element_prefix + std::to_string(i) + "]"; }

  SampleInfo Read(int64_t i, SampleDestination& dest) const override {
    CheckRow(i);
    reader_.ReadAtOwnSize(
        name(i), [&](const ImageFileReader::Place& place) { return FetchElement(i, place); },
        p_.options.max_side,
        [&](image::Size size) {
          return dest.MemoryFor({size.height, size.width, 3});
        });
    SampleInfo info;
    info.label = p_.labels.empty() ? 0 : p_.labels[static_cast<size_t>(i)];
    info.source = name(i);
    info.fields = p_.fields.Read(i);
    return info;
  }

  // The largest image (in bytes) that may be stored: the cap's square, or with no cap the
  // largest any element's header declares (reading every element once).
  void FindLargest() {
    if (p_.options.max_side > 0) {
      largest_ = {p_.options.max_side, p_.options.max_side, 3};
      return;
    }
    tbb::task_arena arena(p_.options.threads > 0 ? p_.options.threads : tbb::task_arena::automatic);
    arena.execute([&] {
      tbb::parallel_for(int64_t{0}, p_.count, [&](int64_t i) {
        try {
          const image::Size size = reader_.ReadSize(
              name(i), [&](const ImageFileReader::Place& place) { return FetchElement(i, place); });
          std::lock_guard lock(largest_mutex_);
          if (int64_t{size.height} * size.width > largest_.height * largest_.width) {
            largest_ = {size.height, size.width, 3};
          }
        } catch (const Error& e) {
          if (e.code() != ErrorCode::kCorrupt) throw;  // broken elements are skipped later
        }
      });
    });
    reader_.ReleaseIdle();
    if (largest_.bytes() <= 0) {
      const std::string dataset = p_.element_prefix.substr(0, p_.element_prefix.size() - 1);
      throw MakeError(ErrorCode::kCorrupt, "no readable image in {} of {}", dataset, p_.path);
    }
  }

 private:
  void CheckRow(int64_t i) const {
    if (i < 0 || i >= p_.count) {
      throw MakeError(ErrorCode::kInvalidArgument, "{}: element {} is out of range [0, {})",
                      p_.path, i, p_.count);
    }
  }

  // Reads element i's bytes into the memory `place` gives (ImageFileReader::Fetch).
  bool FetchElement(int64_t i, const ImageFileReader::Place& place) const {
    bool refused = false;  // Place had no memory without waiting
    std::optional<std::span<uint8_t>> element;
    {
      auto lock = hdf5::Lock();
      hdf5::SilenceErrors silence;
      element = hdf5::ReadByteSequence(p_.images.get(), i, [&](size_t bytes) {
        uint8_t* where = place(static_cast<int64_t>(bytes));
        if (where == nullptr) refused = true;
        return where;
      });
      if (!element && refused) return false;
      if (!element) {
        throw hdf5::StackError(ErrorCode::kCorrupt, "reading " + name(i), p_.path);
      }
    }
    if (element->empty() || element->data() == nullptr) {
      throw MakeError(ErrorCode::kCorrupt, "{} in {} holds no bytes: not an image", name(i),
                      p_.path);
    }
    return true;
  }

  Parts p_;
  std::unique_ptr<MemoryBudget> own_budget_;  // when options.memory is null
  ImageFileReader reader_;
  std::mutex largest_mutex_;
  ImageShape largest_;
};

}  // namespace

bool HoldsOwnSizeImages(const std::string& path) {
  auto lock = hdf5::Lock();
  OpenedFile opened = Open(path, {});
  const hid_t root = opened.file.get();
  return hdf5::HasAttribute(root, format::schema::kAttrLayout) &&
         hdf5::ReadStringAttribute(root, format::schema::kAttrLayout) ==
             format::schema::kLayoutFlat;
}

bool HoldsEncodedImages(const std::string& path, const std::string& images) {
  auto lock = hdf5::Lock();
  return Open(path, images).encoded != nullptr;
}

std::unique_ptr<SampleSource> OpenEncodedHdf5(const std::string& path,
                                              const EncodedHdf5Options& options) {
  CheckImageLimits(options.max_pixels, options.max_side);
  std::unique_ptr<EncodedHdf5Source> source;
  {
    auto lock = hdf5::Lock();
    OpenedFile opened = Open(path, options.images);
    if (opened.encoded == nullptr) {
      throw MakeError(ErrorCode::kNotFound,
                      "no dataset of encoded images in {} (a 1-D dataset of variable-length bytes, "
                      "h5py.vlen_dtype(np.uint8), named {} or the only one); its datasets: {}",
                      path, (options.images.empty() ? std::string(kImagesName) : options.images),
                      hdf5::ListText(opened.datasets));
    }
    hdf5::SilenceErrors silence;
    EncodedHdf5Source::Parts parts;
    parts.path = path;
    parts.options = options;
    const hdf5::DatasetEntry& images = *opened.encoded;
    parts.element_prefix = images.name.substr(images.name.front() == '/' ? 1 : 0) + "[";
    parts.count = images.dims[0];
    parts.chunked = !images.storage.chunk.empty();
    parts.images = hdf5::OpenDataset(opened.file.get(), images.name, path);
    Hdf5Labels labels =
        ReadHdf5Labels(opened.file.get(), opened.datasets, options.labels, parts.count, path);
    parts.labels = std::move(labels.labels);
    parts.classes = std::move(labels.classes);
    const std::string labels_name =
        options.labels.empty() ? format::schema::kLabels : options.labels;
    parts.fields = Hdf5Fields::Open(opened.file.get(), opened.datasets, parts.count,
                                    {images.name, labels_name}, options.fields, path);
    parts.file = std::move(opened.file);
    std::unique_ptr<MemoryBudget> own_budget;
    if (!options.memory) own_budget = std::make_unique<MemoryBudget>(kDefaultMemoryLimit);
    source = std::make_unique<EncodedHdf5Source>(std::move(parts), std::move(own_budget));
  }
  // Outside the lock: reading the headers takes it element by element.
  source->FindLargest();
  return source;
}

std::unique_ptr<SampleSource> OpenRechunkSource(const std::string& path,
                                                const EncodedHdf5Options& options) {
  if (HoldsOwnSizeImages(path)) {
    if (options.fields) {
      throw MakeError(ErrorCode::kInvalidArgument,
                      "{} is an h5feed file of images at their own size: rechunk keeps all its "
                      "fields; choosing them (--field, --no-fields) is not supported for it",
                      path);
    }
    return OpenOwnSizeFile(path);
  }
  if (HoldsEncodedImages(path, options.images)) return OpenEncodedHdf5(path, options);
  Hdf5SourceOptions pixels;
  pixels.images = options.images;
  pixels.labels = options.labels;
  pixels.fields = options.fields;
  return OpenHdf5(path, pixels);
}

}  // namespace h5feed::converters
