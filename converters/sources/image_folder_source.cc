#include "sources/image_folder_source.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <utility>
#include <vector>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "h5feed/error.h"
#include "make_error.h"
#include "sources/image_folder.h"

namespace h5feed::converters {
namespace {

// How the images of a folder without --size are stored.
struct StoredSizes {
  ImageShape shape;  // the one shape, or the largest (in bytes) with own_size
  // When one shape: how images of another size (all above the cap) are fitted to it.
  std::optional<image::ResizeMode> fit;
  bool own_size = false;
};

class ImageFolderSource final : public SampleSource {
 public:
  ImageFolderSource(ImageFolderListing listing, ImageFolderOptions options, StoredSizes sizes,
                    std::unique_ptr<MemoryBudget> own_budget,
                    std::unique_ptr<ImageFileReader> reader)
      : listing_(std::move(listing)),
        options_(options),
        sizes_(sizes),
        own_budget_(std::move(own_budget)),
        reader_(std::move(reader)) {}

  std::string_view kind() const override { return "imagefolder"; }
  int64_t count() const override { return static_cast<int64_t>(listing_.files.size()); }
  ImageShape shape() const override { return sizes_.shape; }
  std::vector<std::string> classes() const override { return listing_.classes; }
  std::string name(int64_t i) const override { return listing_.files[static_cast<size_t>(i)].path; }
  MemoryBudget* memory_budget() const override {
    return options_.memory ? options_.memory : own_budget_.get();
  }
  bool own_size() const override { return sizes_.own_size; }
  int64_t max_side() const override { return options_.size ? 0 : options_.max_side; }

  SampleInfo Read(int64_t i, SampleDestination& dest) const override {
    const ImageFolderEntry& entry = listing_.files[static_cast<size_t>(i)];
    const std::string path = listing_.root + "/" + entry.path;
    if (sizes_.own_size) {
      reader_->ReadAtOwnSize(path, options_.max_side, [&](image::Size size) {
        return dest.MemoryFor({size.height, size.width, 3});
      });
    } else {
      const image::Size target{static_cast<int>(sizes_.shape.height),
                               static_cast<int>(sizes_.shape.width)};
      reader_->Read(path, target, options_.size ? std::optional(options_.resize) : sizes_.fit,
                    dest.MemoryFor(sizes_.shape));
    }
    return {entry.label, entry.path};
  }

 private:
  ImageFolderListing listing_;
  ImageFolderOptions options_;
  StoredSizes sizes_;
  std::unique_ptr<MemoryBudget> own_budget_;  // when options_.memory is null
  std::unique_ptr<ImageFileReader> reader_;
};

using SizeKey = std::pair<int, int>;  // height, width

// The files of each size their headers declare, in listing order. Unreadable headers are left
// for the conversion to report and skip.
std::map<SizeKey, std::vector<size_t>> SizesFromHeaders(const ImageFolderListing& listing,
                                                        const ImageFileReader& reader,
                                                        std::string& first_failure) {
  const size_t n = listing.files.size();
  std::vector<image::Size> sizes(n);
  std::vector<std::string> failures(n);
  tbb::parallel_for(size_t{0}, n, [&](size_t i) {
    try {
      sizes[i] = reader.ReadSize(listing.root + "/" + listing.files[i].path);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kCorrupt) throw;
      failures[i] = e.what();
    }
  });
  std::map<SizeKey, std::vector<size_t>> groups;
  for (size_t i = 0; i < n; ++i) {
    if (sizes[i].height > 0) groups[{sizes[i].height, sizes[i].width}].push_back(i);
    if (first_failure.empty()) first_failure = failures[i];
  }
  return groups;
}

// Of `files`, one that decodes, or none: tried in parallel, stopping at the first success.
std::optional<size_t> OneThatDecodes(const ImageFolderListing& listing,
                                     const std::vector<size_t>& files,
                                     const ImageFileReader& reader) {
  std::atomic<size_t> found{files.size()};
  tbb::parallel_for(size_t{0}, files.size(), [&](size_t k) {
    if (found.load(std::memory_order_relaxed) < files.size()) return;
    try {
      reader.CheckDecodes(listing.root + "/" + listing.files[files[k]].path);
      // The earliest that decodes among those tried, so that messages name the same file.
      size_t seen = found.load();
      while (k < seen && !found.compare_exchange_weak(seen, k)) {}
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kCorrupt) throw;
    }
  });
  if (found.load() == files.size()) return std::nullopt;
  return files[found.load()];
}

// How the images are stored: at the one size their capped sizes share, or each at its own.
// Headers are read for every file, which is cheap. Where the capped sizes differ, files are
// decoded only until two sizes are known to be real: one file that decodes is enough to make
// its size count, and a size none of whose files decodes (truncated downloads, headers that
// promise more data than the file has) is no evidence about the dataset: those files are
// broken, and the conversion skips them with their decode errors.
StoredSizes DecideStoredSizes(const ImageFolderListing& listing, const ImageFileReader& reader,
                              const ImageFolderOptions& options) {
  tbb::task_arena arena(options.threads > 0 ? options.threads : tbb::task_arena::automatic);
  std::map<SizeKey, std::vector<size_t>> groups;
  std::string first_failure;
  arena.execute([&] { groups = SizesFromHeaders(listing, reader, first_failure); });
  if (groups.empty()) {
    reader.ReleaseIdle();
    const size_t files = listing.files.size();
    throw MakeError(ErrorCode::kCorrupt, "no readable image in {}: {}; the first: {}", listing.root,
                    files == 1 ? std::string("its one file could not be read")
                               : fmt::format("none of its {} files could be read", files),
                    first_failure);
  }
  // The files of each stored (capped) size, and whether all of them are stored as they are.
  std::map<SizeKey, std::vector<size_t>> stored;
  std::map<SizeKey, bool> shrunk;
  for (const auto& [size, files] : groups) {
    const image::Size capped = image::CappedSize({size.first, size.second}, options.max_side);
    const SizeKey key{capped.height, capped.width};
    stored[key].insert(stored[key].end(), files.begin(), files.end());
    shrunk[key] = shrunk[key] || key != size;
  }
  auto shape_of = [](const SizeKey& key) { return ImageShape{key.first, key.second, 3}; };
  StoredSizes sizes;
  if (options.own_size || stored.size() > 1) {
    // Most files first: the decode checks then stop soonest.
    std::vector<SizeKey> keys;
    for (const auto& entry : stored) keys.push_back(entry.first);
    std::stable_sort(keys.begin(), keys.end(), [&](const SizeKey& a, const SizeKey& b) {
      return stored[a].size() > stored[b].size();
    });
    std::vector<SizeKey> real;
    if (options.own_size) {
      real = keys;
    } else {
      arena.execute([&] {
        for (const SizeKey& key : keys) {
          if (OneThatDecodes(listing, stored[key], reader)) real.push_back(key);
          if (real.size() == 2) break;
        }
      });
    }
    if (real.empty()) {
      reader.ReleaseIdle();
      throw MakeError(ErrorCode::kCorrupt, "no readable image in {}", listing.root);
    }
    if (real.size() == 1 && !options.own_size) {
      stored = {{real.front(), stored[real.front()]}};
    } else {
      sizes.own_size = true;
      for (const SizeKey& key : keys) {
        if (shape_of(key).bytes() > sizes.shape.bytes()) sizes.shape = shape_of(key);
      }
    }
  }
  // The size check's buffers go back before the conversion sets its chunk buffers aside.
  reader.ReleaseIdle();
  if (!sizes.own_size) {
    const SizeKey key = stored.begin()->first;
    sizes.shape = shape_of(key);
    if (shrunk[key]) sizes.fit = image::ResizeMode::kStretch;
  }
  return sizes;
}

}  // namespace

std::unique_ptr<SampleSource> OpenImageFolder(const std::string& root,
                                              const ImageFolderOptions& options) {
  if (options.size && (options.size->height <= 0 || options.size->width <= 0)) {
    throw MakeError(ErrorCode::kInvalidArgument, "{} must be positive, as HxW (e.g. 224x224)",
                    NameOption(options.option_names, "ImageFolderOptions", "size"));
  }
  CheckImageLimits(options.max_pixels, options.max_side, options.option_names);
  std::unique_ptr<MemoryBudget> own_budget;
  if (!options.memory) own_budget = std::make_unique<MemoryBudget>(kDefaultMemoryLimit);
  MemoryBudget& budget = options.memory ? *options.memory : *own_budget;
  auto reader = std::make_unique<ImageFileReader>(budget, options.max_pixels, options.option_names);
  ImageFolderListing listing = ListImageFolder(root, options.allow_empty, options.option_names);
  StoredSizes sizes;
  if (options.size) {
    sizes.shape = {options.size->height, options.size->width, 3};
  } else if (options.own_size && options.max_side > 0) {
    // Each image at its own size, capped: no header needs reading to know how they are stored
    // or to bound the largest (the cap's square), which is all a conversion sizes its chunks
    // and buffers by. So a conversion in parts does not read every input's header in every
    // part (docs/scale.md).
    sizes.own_size = true;
    sizes.shape = {options.max_side, options.max_side, 3};
  } else {
    sizes = DecideStoredSizes(listing, *reader, options);
  }
  return std::make_unique<ImageFolderSource>(std::move(listing), options, sizes,
                                             std::move(own_budget), std::move(reader));
}

}  // namespace h5feed::converters
