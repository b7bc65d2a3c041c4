#include "sources/fitted_images.h"

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::converters {

FittedImages::FittedImages(const FitOptions& options) : options_(options) {
  if (options.size && (options.size->height <= 0 || options.size->width <= 0)) {
    throw MakeError(ErrorCode::kInvalidArgument, "{} must be positive, as HxW (e.g. 224x224)",
                    NameOption(options.option_names, "FitOptions", "size"));
  }
  CheckImageLimits(options.max_pixels, options.max_side, options.option_names);
  if (!options.memory) own_budget_ = std::make_unique<MemoryBudget>(kDefaultMemoryLimit);
  reader_ = std::make_unique<ImageFileReader>(budget(), options.max_pixels, options.option_names);
}

image::ResizeMode FittedImages::mode() const {
  return options_.size ? options_.resize : image::ResizeMode::kStretch;
}

ImageShape FittedImages::Shape(std::span<const image::Size> sizes, const std::string& what) const {
  if (options_.size) return {options_.size->height, options_.size->width, 3};
  ImageShape largest;
  for (const image::Size size : sizes) {
    if (size.height <= 0) continue;
    const image::Size capped = image::CappedSize(size, options_.max_side);
    const ImageShape shape{capped.height, capped.width, 3};
    if (shape.bytes() > largest.bytes()) largest = shape;
  }
  if (largest.bytes() == 0) throw MakeError(ErrorCode::kCorrupt, "no readable image in {}", what);
  return largest;
}

image::Size FittedImages::Read(const std::string& path, SampleDestination& dest) const {
  if (options_.size) {
    const image::Size size = *options_.size;
    reader_->Read(path, size, options_.resize, dest.MemoryFor({size.height, size.width, 3}));
    return size;
  }
  image::Size stored;
  reader_->ReadAtOwnSize(path, options_.max_side, [&](image::Size size) {
    stored = size;
    return dest.MemoryFor({size.height, size.width, 3});
  });
  return stored;
}

}  // namespace h5feed::converters
