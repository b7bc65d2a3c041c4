#include "transform/own_size_views.h"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "make_error.h"
#include "transform/output_spec.h"

namespace h5feed::transform {
namespace {

// Kept within the kernels' int32 pixel arithmetic, as a stored image is (output_spec.cc).
constexpr int64_t kMaxStackedRows = int64_t{1} << 16;

// A center crop after Resize(S) that every image's resized size holds: at most LargestCrop
// of the file's `extremes`, or, its sizes not known, at most S x S (an image's resized shorter
// side is S, and its longer side depends on its aspect ratio, which nothing bounds).
void CheckCropFits(const AugmentOptions& augment, const std::optional<ResizeExtremes>& extremes,
                   const std::function<std::string(const char*)>& name) {
  const int64_t shorter = augment.resize_shorter;
  int64_t height = shorter;
  int64_t width = shorter;
  if (extremes) extremes->LargestCrop(shorter, height, width);
  if (augment.center_crop_height <= height && augment.center_crop_width <= width) return;
  const std::string asked =
      fmt::format("{} is {}x{} but {} = {}", name("center_crop"), augment.center_crop_height,
                  augment.center_crop_width, name("resize_shorter"), shorter);
  if (!extremes) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} makes an image's shorter side {}, and the images' sizes are not known "
                    "ahead; crop at most {}x{}",
                    asked, shorter, shorter, shorter);
  }
  throw MakeError(ErrorCode::kInvalidArgument,
                  "{} makes the file's narrowest image ({} x {}, height x width) {} wide and its "
                  "flattest ({} x {}) {} tall; crop at most {}x{}, which every image's resized "
                  "size holds",
                  asked, extremes->narrowest.height, extremes->narrowest.width, width,
                  extremes->flattest.height, extremes->flattest.width, height, height, width);
}

// A crop the gather can make at one size whatever the image's: a random resized crop, or a
// resize with a center crop that every image's resized size holds (CheckCropFits).
void CheckGivesOneSize(const AugmentOptions& augment, const std::optional<ResizeExtremes>& extremes,
                       const std::string& spec, const OptionNames& names) {
  const bool random_resized = augment.random_resized_crop.height > 0;
  const bool resize_and_crop = augment.resize_shorter > 0 && augment.center_crop_height > 0;
  const std::function<std::string(const char*)> name = [&](const char* field) {
    return NameOption(names, "LoaderOptions", spec + "." + field);
  };
  if (!random_resized && !resize_and_crop) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "a batch needs one size: set {} (training, torchvision's RandomResizedCrop) "
                    "or {} with {} (validation, Resize and CenterCrop)",
                    name("random_resized_crop"), name("resize_shorter"), name("center_crop"));
  }
  // With a random resized crop too, MakeViewSpec refuses the pair.
  if (!random_resized) CheckCropFits(augment, extremes, name);
  if (augment.random_crop_padding > 0) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} pads a stored image of one size; images at their own size are cropped by "
                    "{} or {}: leave it unset",
                    name("random_crop_padding"), name("random_resized_crop"), name("center_crop"));
  }
}

// A view's room in the stacked image: its largest size, at (top, left).
struct Place {
  int64_t height = 0, width = 0;
  int64_t top = 0, left = 0;
};

// Places the rooms in view order on shelves as wide as the widest room: a room goes to the
// right of the last one when it fits there and is no taller than that shelf, else it starts a
// new shelf below. Views of one spec (DINO's local crops) so share rows instead of each taking
// a band of the full width.
void PackOnShelves(std::vector<Place>& places, int64_t& height, int64_t& width) {
  width = 0;
  for (const Place& place : places) width = std::max(width, place.width);
  height = 0;
  int64_t shelf_top = 0, shelf_height = 0, shelf_used = width;  // no shelf yet: "full"
  for (Place& place : places) {
    if (shelf_used + place.width > width || place.height > shelf_height) {
      shelf_top = height;
      shelf_height = place.height;
      shelf_used = 0;
      height += place.height;
    }
    place.top = shelf_top;
    place.left = shelf_used;
    shelf_used += place.width;
  }
}

}  // namespace

void ResizeExtremes::Add(const ImageShape& shape) {
  // a / b < c / d as a x d < c x b: sides fit in 32 bits, so the products are exact.
  const auto less = [](int64_t a, int64_t b, int64_t c, int64_t d) { return a * d < c * b; };
  if (narrowest.height == 0 || less(shape.width, shape.height, narrowest.width, narrowest.height)) {
    narrowest = shape;
  }
  if (flattest.width == 0 || less(shape.height, shape.width, flattest.height, flattest.width)) {
    flattest = shape;
  }
}

void ResizeExtremes::LargestCrop(int64_t shorter, int64_t& height, int64_t& width) const {
  int64_t unused = 0;
  ResizedSize(narrowest, shorter, unused, width);
  ResizedSize(flattest, shorter, height, unused);
}

OutputViews MakeOwnSizeViews(const NormalizeParams& normalize, const ImageShape& largest,
                             const std::optional<ResizeExtremes>& extremes,
                             const OutputOptions& output, uint64_t seed, const OptionNames& names,
                             const OutputViews* opened) {
  // The crops, checked and set up as for a file of the largest image's size, without the flip,
  // which each delivered view makes of its window.
  OutputOptions crop_only = output;
  for (int s = 0; s < SpecCount(output); ++s) {
    AugmentOptions& augment = SpecOf(crop_only, s);
    CheckGivesOneSize(augment, extremes, SpecName(output, s), names);
    augment.random_flip = false;
  }
  OutputViews views = MakeOutputViews(normalize, largest, crop_only, seed, names);

  // Each view's room: its largest size, and where it lies in the stacked image.
  const int count = views.count();
  std::vector<Place> places(static_cast<size_t>(count));
  for (int v = 0; v < count; ++v) {
    const auto i = static_cast<size_t>(v);
    const AugmentOptions& augment = SpecOf(output, views.spec_of_view[i]);
    const AugmentParams& at_open = (opened != nullptr ? opened->views[i] : views.views[i]).augment;
    places[i].height =
        augment.max_output_height > 0 ? augment.max_output_height : at_open.out_height;
    places[i].width = augment.max_output_width > 0 ? augment.max_output_width : at_open.out_width;
  }
  int64_t height = 0;
  int64_t width = 0;
  if (opened != nullptr) {
    const ImageShape stacked = StackedShape(*opened);
    height = stacked.height;
    width = stacked.width;
    for (size_t i = 0; i < places.size(); ++i) {
      places[i].top = opened->views[i].augment.crop_top;
      places[i].left = opened->views[i].augment.crop_left;
    }
  } else {
    PackOnShelves(places, height, width);
    if (height > kMaxStackedRows) {
      throw MakeError(ErrorCode::kInvalidArgument,
                      "{}: the views of each sample take {} rows at their largest sizes, more than "
                      "{}; ask for fewer or smaller views",
                      NameOption(names, "LoaderOptions",
                                 output.views.empty() ? "output.augment" : "output.views"),
                      height, kMaxStackedRows);
    }
  }

  for (int v = 0; v < count; ++v) {
    const auto i = static_cast<size_t>(v);
    const Place& place = places[i];
    AugmentParams& window = views.views[i].augment;
    const AugmentParams crop = window;
    if (crop.out_height > place.height || crop.out_width > place.width) {
      const int spec = views.spec_of_view[i];
      throw MakeError(ErrorCode::kInvalidArgument,
                      "{}: {}x{} is larger than the loader made room for at Open (view spec {}: "
                      "{}x{}); open it with {} at least that large",
                      NameMethod(names, "Loader", "SetOutputSize"), crop.out_height, crop.out_width,
                      spec, place.height, place.width,
                      NameOption(names, "LoaderOptions", SpecName(output, spec) + ".max_output"));
    }
    views.gather_crops.push_back(crop);
    window = AugmentParams{};
    window.seed = crop.seed;
    window.view = crop.view;
    window.crop = CropKind::kWindow;
    window.out_height = crop.out_height;
    window.out_width = crop.out_width;
    window.crop_top = static_cast<int32_t>(place.top);
    window.crop_left = static_cast<int32_t>(place.left);
    window.image_height = static_cast<int32_t>(height);
    window.image_width = static_cast<int32_t>(width);
    window.random_flip = SpecOf(output, views.spec_of_view[i]).random_flip;
  }
  return views;
}

ImageShape StackedShape(const OutputViews& views) {
  const OutputSpec& first = views.views.front();
  return {first.augment.image_height, first.augment.image_width, first.normalize.channels};
}

uint8_t* PlaceOf(const OutputViews& views, int view, uint8_t* sample) {
  const AugmentParams& window = views.views[static_cast<size_t>(view)].augment;
  return sample + window.crop_top * StackedRowStride(views) +
         int64_t{window.crop_left} * views.views.front().normalize.channels;
}

int64_t StackedRowStride(const OutputViews& views) {
  const ImageShape stacked = StackedShape(views);
  return stacked.width * stacked.channels;
}

}  // namespace h5feed::transform
