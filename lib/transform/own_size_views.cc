#include "transform/own_size_views.h"

#include <algorithm>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::transform {
namespace {

// Kept within the kernels' int32 pixel arithmetic, as a stored image is (output_spec.cc).
constexpr int64_t kMaxStackedRows = int64_t{1} << 16;

std::string SpecName(const OutputOptions& output, size_t spec) {
  return output.views.empty() ? "output.augment" : "output.views[" + std::to_string(spec) + "]";
}

// A crop the gather can make at one size whatever the image's: a random resized crop, or a
// resize with a center crop no larger than the resized shorter side.
void CheckGivesOneSize(const AugmentOptions& augment, const std::string& spec,
                       const OptionNames& names) {
  const bool random_resized = augment.random_resized_crop.height > 0;
  const bool resize_and_crop = augment.resize_shorter > 0 && augment.center_crop_height > 0 &&
                               augment.center_crop_height <= augment.resize_shorter &&
                               augment.center_crop_width <= augment.resize_shorter;
  const auto name = [&](const char* field) {
    return NameOption(names, "LoaderOptions", spec + "." + field);
  };
  if (!random_resized && !resize_and_crop) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "a batch needs one size: set {} (training; Python augment=h5feed.Augment("
                    "random_resized_crop=224)) or {} with a {} no larger (validation; "
                    "resize_shorter=256, center_crop=224)",
                    name("random_resized_crop"), name("resize_shorter"), name("center_crop"));
  }
  if (augment.random_crop_padding > 0) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} pads a stored image of one size; images at their own size are cropped by "
                    "{} or {}: leave it unset",
                    name("random_crop_padding"), name("random_resized_crop"), name("center_crop"));
  }
}

const AugmentOptions& SpecOf(const OutputOptions& output, int spec) {
  return output.views.empty() ? output.augment : output.views[static_cast<size_t>(spec)];
}

}  // namespace

OutputViews MakeOwnSizeViews(const NormalizeParams& normalize, const ImageShape& largest,
                             const OutputOptions& output, uint64_t seed, const OptionNames& names,
                             const OutputViews* opened) {
  // The crops, checked and set up as for a file of the largest image's size, without the flip,
  // which each delivered view makes of its window.
  OutputOptions crop_only = output;
  const size_t specs = output.views.empty() ? 1 : output.views.size();
  for (size_t s = 0; s < specs; ++s) {
    AugmentOptions& augment =
        output.views.empty() ? crop_only.augment : crop_only.views[static_cast<size_t>(s)];
    CheckGivesOneSize(augment, SpecName(output, s), names);
    augment.random_flip = false;
  }
  OutputViews views = MakeOutputViews(normalize, largest, crop_only, seed, names);

  std::vector<int64_t> tops;
  int64_t height = 0;
  int64_t width = 0;
  if (opened != nullptr) {
    const ImageShape stacked = StackedShape(*opened);
    for (const OutputSpec& spec : opened->views) tops.push_back(spec.augment.crop_top);
    height = stacked.height;
    width = stacked.width;
  } else {
    for (int v = 0; v < views.count(); ++v) {
      const AugmentOptions& augment = SpecOf(output, views.spec_of_view[static_cast<size_t>(v)]);
      const AugmentParams& crop = views.views[static_cast<size_t>(v)].augment;
      tops.push_back(height);
      height += augment.max_output_height > 0 ? augment.max_output_height : crop.out_height;
      width = std::max<int64_t>(
          width, augment.max_output_width > 0 ? augment.max_output_width : crop.out_width);
    }
    if (height > kMaxStackedRows) {
      throw MakeError(ErrorCode::kInvalidArgument,
                      "{}: the views of each sample take {} rows at their largest sizes, more than "
                      "{}; ask for fewer or smaller views",
                      NameOption(names, "LoaderOptions",
                                 output.views.empty() ? "output.augment" : "output.views"),
                      height, kMaxStackedRows);
    }
  }

  for (int v = 0; v < views.count(); ++v) {
    const size_t i = static_cast<size_t>(v);
    const AugmentParams& crop = views.views[i].augment;
    const int64_t band = (i + 1 < tops.size() ? tops[i + 1] : height) - tops[i];
    if (crop.out_height > band || crop.out_width > width) {
      throw MakeError(ErrorCode::kInvalidArgument,
                      "SetOutputSize: {}x{} is larger than the loader made room for at Open (view "
                      "spec {}: {}x{}); open it with max_output_height and max_output_width "
                      "(Python: Augment's max_size) at least that large",
                      crop.out_height, crop.out_width, views.spec_of_view[i], band, width);
    }
  }
  for (int v = 0; v < views.count(); ++v) {
    AugmentParams& window = views.views[static_cast<size_t>(v)].augment;
    const AugmentParams crop = window;
    views.gather_crops.push_back(crop);
    window = AugmentParams{};
    window.seed = crop.seed;
    window.view = crop.view;
    window.crop = CropKind::kWindow;
    window.out_height = crop.out_height;
    window.out_width = crop.out_width;
    window.crop_top = static_cast<int32_t>(tops[static_cast<size_t>(v)]);
    window.image_height = static_cast<int32_t>(height);
    window.image_width = static_cast<int32_t>(width);
    window.random_flip = SpecOf(output, views.spec_of_view[static_cast<size_t>(v)]).random_flip;
  }
  return views;
}

ImageShape StackedShape(const OutputViews& views) {
  const OutputSpec& first = views.views.front();
  return {first.augment.image_height, first.augment.image_width, first.normalize.channels};
}

uint8_t* BandOf(const OutputViews& views, int view, uint8_t* sample) {
  return sample + views.views[static_cast<size_t>(view)].augment.crop_top * BandRowStride(views);
}

int64_t BandRowStride(const OutputViews& views) {
  const ImageShape stacked = StackedShape(views);
  return stacked.width * stacked.channels;
}

}  // namespace h5feed::transform
