#pragma once
// The images of a source whose samples carry masks or boxes (`convert segmentation`,
// `convert coco`), read at their stored size: every image fitted to one size (`size`, by
// `resize`: a version 1 file), or each at its own size with its longer side capped at
// `max_side` (a version 2 file). Either way the caller gets the size the image was stored at,
// which with the image's own size places its mask or boxes (placed_fields.h).
//
// Thread-safety: Read and ReadSize may be called from many threads at once (the image file
// reader's contract, image_file_reader.h). Owns its reader and, without options.memory, a
// budget of kDefaultMemoryLimit.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "h5feed/image_shape.h"
#include "h5feed/option_names.h"
#include "image/resize.h"
#include "memory_budget.h"
#include "sample_destination.h"
#include "sources/image_file_reader.h"
#include "sources/image_folder_source.h"

namespace h5feed::converters {

struct FitOptions {
  // Every image fitted to this size by `resize`; empty: each at its own size, capped.
  std::optional<image::Size> size;
  int max_side = kDefaultMaxSide;  // without `size`: the cap on the longer side; 0 = none
  image::ResizeMode resize = image::ResizeMode::kCrop;
  // The class id of a mask's border under resize kPad (the image's border is black): 0, or 255
  // for Pascal VOC's and Cityscapes' "ignore". Nothing is padded otherwise.
  uint8_t mask_fill = 0;
  int64_t max_pixels = kDefaultMaxPixels;  // as ImageFolderOptions::max_pixels
  // The memory decoding may use, shared with the conversion; must outlive the reader. Null: a
  // budget of kDefaultMemoryLimit of its own.
  MemoryBudget* memory = nullptr;
  int threads = 0;  // for reading every header at open; 0 = all cores
  OptionNames option_names;
};

class FittedImages {
 public:
  // Throws Error(kInvalidArgument) for a size that is not positive, or limits
  // CheckImageLimits refuses.
  explicit FittedImages(const FitOptions& options);

  // How each image's mask and boxes follow it: `resize` for a fixed size, kStretch for the cap
  // (CappedSize keeps the aspect ratio, so stretching to it is the plain scale it is).
  image::ResizeMode mode() const;
  uint8_t mask_fill() const { return options_.mask_fill; }
  bool own_size() const { return !options_.size; }
  int64_t max_side() const { return options_.size ? 0 : options_.max_side; }
  MemoryBudget& budget() const { return options_.memory ? *options_.memory : *own_budget_; }
  int threads() const { return options_.threads; }
  const OptionNames& option_names() const { return options_.option_names; }
  // The stored shape: the fixed size's, or the largest (in bytes) of `sizes` capped (the images'
  // own sizes, those of unreadable headers 0 x 0). Throws Error(kCorrupt) naming `what` when
  // no size is known.
  ImageShape Shape(std::span<const image::Size> sizes, const std::string& what) const;

  // The size `path`'s header declares: Error(kCorrupt) when unreadable (ImageFileReader).
  image::Size ReadSize(const std::string& path) const { return reader_->ReadSize(path); }
  // Decodes `path` into the memory `dest` gives at its stored size, and returns that size.
  // Throws Error(kCorrupt) for a broken or refused file.
  image::Size Read(const std::string& path, SampleDestination& dest) const;
  // Gives back the reader's idle scratch (after reading every header at open).
  void ReleaseIdle() const { reader_->ReleaseIdle(); }

 private:
  FitOptions options_;
  std::unique_ptr<MemoryBudget> own_budget_;  // when options_.memory is null
  std::unique_ptr<ImageFileReader> reader_;
};

}  // namespace h5feed::converters
