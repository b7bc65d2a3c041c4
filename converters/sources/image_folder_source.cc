#include "sources/image_folder_source.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "h5feed/error.h"
#include "image/image_decoder.h"
#include "sources/image_folder.h"
#include "sources/read_file.h"

namespace h5feed {
namespace {

class ImageFolderSource final : public SampleSource {
 public:
  ImageFolderSource(ImageFolderListing listing, ImageFolderOptions options, ImageShape shape)
      : listing_(std::move(listing)), options_(options), shape_(shape) {}

  std::string_view kind() const override { return "imagefolder"; }
  int64_t count() const override { return static_cast<int64_t>(listing_.files.size()); }
  ImageShape shape() const override { return shape_; }
  std::vector<std::string> classes() const override { return listing_.classes; }
  std::string name(int64_t i) const override { return listing_.files[static_cast<size_t>(i)].path; }

  SampleInfo Read(int64_t i, std::span<uint8_t> dest) const override {
    const ImageFolderEntry& entry = listing_.files[static_cast<size_t>(i)];
    std::string path = listing_.root + "/" + entry.path;
    // Per-thread buffers: a conversion reads tens of thousands of files per thread, and
    // reallocating the encoded and decoded buffers for each would dominate small images.
    thread_local std::vector<uint8_t> encoded;
    thread_local std::vector<uint8_t> decoded;
    ReadFileInto(path, encoded);
    image::DecodePlan plan = image::PlanDecode(encoded, path);
    image::Size target{static_cast<int>(shape_.height), static_cast<int>(shape_.width)};
    if (!options_.size) {
      if (plan.height != target.height || plan.width != target.width) {
        throw Error(ErrorCode::kCorrupt, path + " changed size while converting");
      }
      image::Decode(encoded, plan, path, dest);
    } else {
      image::Size scaled =
          image::ScaledSourceSize({plan.full_height, plan.full_width}, target, options_.resize);
      plan = image::PlanDecode(encoded, path, scaled.height, scaled.width);
      decoded.resize(static_cast<size_t>(plan.bytes()));
      image::Decode(encoded, plan, path, decoded);
      image::ResizeInto(decoded, {plan.height, plan.width}, target, options_.resize, dest);
    }
    return {entry.label, entry.path};
  }

 private:
  ImageFolderListing listing_;
  ImageFolderOptions options_;
  ImageShape shape_;
};

// The one size all images share, read from their headers in parallel. Unreadable files are
// left for the conversion to report and skip.
image::Size CommonImageSize(const ImageFolderListing& listing, int threads) {
  const size_t n = listing.files.size();
  std::vector<image::Size> sizes(n);
  tbb::task_arena arena(threads > 0 ? threads : tbb::task_arena::automatic);
  arena.execute([&] {
    tbb::parallel_for(size_t{0}, n, [&](size_t i) {
      std::string path = listing.root + "/" + listing.files[i].path;
      thread_local std::vector<uint8_t> bytes;
      try {
        // A header fits in the first 256 KiB unless a huge metadata block precedes it.
        ReadFileInto(path, bytes, 256 << 10);
        image::DecodePlan plan;
        try {
          plan = image::PlanDecode(bytes, path);
        } catch (const Error&) {
          ReadFileInto(path, bytes);
          plan = image::PlanDecode(bytes, path);
        }
        sizes[i] = {plan.full_height, plan.full_width};
      } catch (const Error& e) {
        if (e.code() != ErrorCode::kCorrupt) throw;
      }
    });
  });
  std::map<std::pair<int, int>, int64_t> counts;
  for (const image::Size& size : sizes) {
    if (size.height > 0) ++counts[{size.height, size.width}];
  }
  if (counts.empty()) {
    throw Error(ErrorCode::kCorrupt, "no readable image in " + listing.root);
  }
  auto common = std::max_element(counts.begin(), counts.end(),
                                  [](auto& a, auto& b) { return a.second < b.second; });
  if (counts.size() > 1) {
    std::string message = "images in " + listing.root + " have " + std::to_string(counts.size()) +
                          " different sizes (most are " + std::to_string(common->first.first) +
                          "x" + std::to_string(common->first.second) + ", HxW); for example:";
    int listed = 0;
    for (size_t i = 0; i < n && listed < 5; ++i) {
      if (sizes[i].height > 0 && std::make_pair(sizes[i].height, sizes[i].width) != common->first) {
        message += "\n  " + listing.files[i].path + ": " + std::to_string(sizes[i].height) + "x" +
                   std::to_string(sizes[i].width);
        ++listed;
      }
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
  ImageFolderListing listing = ListImageFolder(root, options.allow_empty);
  image::Size size = options.size ? *options.size : CommonImageSize(listing, options.threads);
  ImageShape shape{size.height, size.width, 3};
  return std::make_unique<ImageFolderSource>(std::move(listing), options, shape);
}

}  // namespace h5feed
