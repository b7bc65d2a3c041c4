#include "sources/image_folder_source.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <utility>
#include <vector>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "h5feed/error.h"
#include "sources/image_folder.h"

namespace h5feed {
namespace {

class ImageFolderSource final : public SampleSource {
 public:
  ImageFolderSource(ImageFolderListing listing, ImageFolderOptions options, ImageShape shape,
                    std::unique_ptr<MemoryBudget> own_budget,
                    std::unique_ptr<ImageFileReader> reader)
      : listing_(std::move(listing)),
        options_(options),
        shape_(shape),
        own_budget_(std::move(own_budget)),
        reader_(std::move(reader)) {}

  std::string_view kind() const override { return "imagefolder"; }
  int64_t count() const override { return static_cast<int64_t>(listing_.files.size()); }
  ImageShape shape() const override { return shape_; }
  std::vector<std::string> classes() const override { return listing_.classes; }
  std::string name(int64_t i) const override { return listing_.files[static_cast<size_t>(i)].path; }
  MemoryBudget* memory_budget() const override {
    return options_.memory ? options_.memory : own_budget_.get();
  }

  SampleInfo Read(int64_t i, std::span<uint8_t> dest) const override {
    const ImageFolderEntry& entry = listing_.files[static_cast<size_t>(i)];
    const image::Size target{static_cast<int>(shape_.height), static_cast<int>(shape_.width)};
    reader_->Read(listing_.root + "/" + entry.path, target,
                  options_.size ? std::optional(options_.resize) : std::nullopt, dest);
    return {entry.label, entry.path};
  }

 private:
  ImageFolderListing listing_;
  ImageFolderOptions options_;
  ImageShape shape_;
  std::unique_ptr<MemoryBudget> own_budget_;  // when options_.memory is null
  std::unique_ptr<ImageFileReader> reader_;
};

using SizeKey = std::pair<int, int>;  // height, width

// The files of each size their headers declare, in listing order. Unreadable headers are left
// for the conversion to report and skip.
std::map<SizeKey, std::vector<size_t>> SizesFromHeaders(const ImageFolderListing& listing,
                                                        const ImageFileReader& reader) {
  const size_t n = listing.files.size();
  std::vector<image::Size> sizes(n);
  tbb::parallel_for(size_t{0}, n, [&](size_t i) {
    try {
      sizes[i] = reader.ReadSize(listing.root + "/" + listing.files[i].path);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kCorrupt) throw;
    }
  });
  std::map<SizeKey, std::vector<size_t>> groups;
  for (size_t i = 0; i < n; ++i) {
    if (sizes[i].height > 0) groups[{sizes[i].height, sizes[i].width}].push_back(i);
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

// The one size all images that decode share. Headers are read for every file, which is cheap;
// only where they disagree are files decoded: one that decodes is enough to make its size
// count, and a size none of whose files decodes (truncated downloads, headers that promise
// more data than the file has) is no evidence about the dataset: those files are broken, and
// the conversion skips them with their decode errors.
image::Size CommonImageSize(const ImageFolderListing& listing, const ImageFileReader& reader,
                            int threads) {
  tbb::task_arena arena(threads > 0 ? threads : tbb::task_arena::automatic);
  std::map<SizeKey, std::vector<size_t>> groups;
  std::map<SizeKey, size_t> decodes;  // a file of each size that decodes
  arena.execute([&] {
    groups = SizesFromHeaders(listing, reader);
    if (groups.size() < 2) return;
    std::vector<SizeKey> keys;
    for (const auto& group : groups) keys.push_back(group.first);
    std::vector<std::optional<size_t>> found(keys.size());
    tbb::parallel_for(size_t{0}, keys.size(), [&](size_t g) {
      found[g] = OneThatDecodes(listing, groups[keys[g]], reader);
    });
    for (size_t g = 0; g < keys.size(); ++g) {
      if (found[g]) {
        decodes[keys[g]] = *found[g];
      } else {
        groups.erase(keys[g]);
      }
    }
  });
  // The size check's buffers go back before the conversion sets its chunk buffers aside.
  reader.ReleaseIdle();
  if (groups.empty()) {
    throw Error(ErrorCode::kCorrupt, "no readable image in " + listing.root);
  }
  auto common = std::max_element(groups.begin(), groups.end(), [](auto& a, auto& b) {
    return a.second.size() < b.second.size();
  });
  if (groups.size() > 1) {
    std::string message = "images in " + listing.root + " have " + std::to_string(groups.size()) +
                          " different sizes (most are " + std::to_string(common->first.first) +
                          "x" + std::to_string(common->first.second) + ", HxW); for example:";
    int listed = 0;
    for (const auto& [size, files] : groups) {
      if (size == common->first || listed == 5) continue;
      message += "\n  " + listing.files[decodes[size]].path + ": " + std::to_string(size.first) +
                 "x" + std::to_string(size.second);
      ++listed;
    }
    message += "\npass --size HxW to resize every image to one size";
    throw Error(ErrorCode::kInvalidArgument, message);
  }
  return {common->first.first, common->first.second};
}

}  // namespace

std::unique_ptr<SampleSource> OpenImageFolder(const std::string& root,
                                              const ImageFolderOptions& options) {
  if (options.size && (options.size->height <= 0 || options.size->width <= 0)) {
    throw Error(ErrorCode::kInvalidArgument, "--size must be positive, as HxW (e.g. 224x224)");
  }
  if (options.max_pixels < 0) {
    throw Error(ErrorCode::kInvalidArgument, "--max-pixels must be 0 (no limit) or positive, got " +
                                                 std::to_string(options.max_pixels));
  }
  std::unique_ptr<MemoryBudget> own_budget;
  if (!options.memory) own_budget = std::make_unique<MemoryBudget>(kDefaultMemoryLimit);
  MemoryBudget& budget = options.memory ? *options.memory : *own_budget;
  auto reader = std::make_unique<ImageFileReader>(budget, options.max_pixels);
  ImageFolderListing listing = ListImageFolder(root, options.allow_empty);
  const image::Size size =
      options.size ? *options.size : CommonImageSize(listing, *reader, options.threads);
  ImageShape shape{size.height, size.width, 3};
  return std::make_unique<ImageFolderSource>(std::move(listing), options, shape,
                                             std::move(own_budget), std::move(reader));
}

}  // namespace h5feed
