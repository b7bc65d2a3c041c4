#include "transform/output_spec.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "h5feed/error.h"
#include "h5feed/image_shape.h"
#include "h5feed/option_names.h"
#include "make_error.h"

namespace h5feed::transform {
namespace {

// Sizes the kernels' int32 arithmetic and the taps' float centres stay exact for.
constexpr int64_t kMaxSide = 1 << 16;

std::string Size(int64_t height, int64_t width) {
  return std::to_string(height) + "x" + std::to_string(width);
}

// The checks of one view spec's options, each naming the field as the caller spells it
// (option_names.h; by default "LoaderOptions.output.views[1].resize_shorter").
class Checker {
 public:
  Checker(const OptionNames& names, std::string spec) : names_(names), spec_(std::move(spec)) {}
  std::string Name(std::string_view field) const {
    return NameOption(names_, "LoaderOptions", spec_ + "." + std::string(field));
  }
  // Throws "<field> <what>" unless `condition`; `what` is formatted only then.
  template <typename... Args>
  void Require(bool condition, std::string_view field, fmt::format_string<Args...> what,
               Args&&... args) const {
    if (!condition) {
      throw MakeError(ErrorCode::kInvalidArgument, "{} {}", Name(field),
                      fmt::format(what, std::forward<Args>(args)...));
    }
  }

 private:
  const OptionNames& names_;
  const std::string spec_;
};

void CheckRandomResizedCrop(const RandomResizedCropOptions& crop, const AugmentOptions& augment,
                            const Checker& check) {
  check.Require(
      crop.height > 0 && crop.width > 0 && crop.height <= kMaxSide && crop.width <= kMaxSide,
      "random_resized_crop", "is {}; set both sides, each in [1, {}]",
      Size(crop.height, crop.width), kMaxSide);
  check.Require(
      augment.center_crop_height == 0 && augment.center_crop_width == 0 &&
          augment.resize_shorter == 0 && augment.random_crop_padding == 0,
      "random_resized_crop", "is its own crop: leave {}, {} and {} unset (or use another view)",
      check.Name("center_crop"), check.Name("resize_shorter"), check.Name("random_crop_padding"));
  check.Require(
      std::isfinite(crop.scale_min) && std::isfinite(crop.scale_max) && crop.scale_min > 0 &&
          crop.scale_min <= crop.scale_max,
      "random_resized_crop.scale",
      "is ({}, {}); it must be 0 < scale_min <= scale_max (fractions of the image's area)",
      crop.scale_min, crop.scale_max);
  check.Require(
      std::isfinite(crop.ratio_min) && std::isfinite(crop.ratio_max) && crop.ratio_min > 0 &&
          crop.ratio_min <= crop.ratio_max && crop.ratio_max / crop.ratio_min < 1e6,
      "random_resized_crop.ratio",
      "is ({}, {}); it must be 0 < ratio_min <= ratio_max (width / height), within a factor of "
      "10^6",
      crop.ratio_min, crop.ratio_max);
}

// torchvision's center_crop offset: int(round(room / 2.0)), Python's round (ties to even);
// std::rint rounds the same way in the default rounding mode.
int32_t Centered(int64_t room) {
  return static_cast<int32_t>(std::rint(static_cast<double>(room) / 2));
}

// uint8 views deliver the pixels as they are: x * 1 + 0 is x exactly in float, and stored back
// as uint8 unchanged.
NormalizeParams Identity(int channels) {
  NormalizeParams identity;
  identity.channels = channels;
  for (int c = 0; c < NormalizeParams::kMaxChannels; ++c) {
    identity.scale[c] = 1.0f;
    identity.bias[c] = 0.0f;
  }
  return identity;
}

}  // namespace

void ResizedSize(const ImageShape& shape, int64_t shorter, int64_t& height, int64_t& width) {
  const bool portrait = shape.width <= shape.height;
  const int64_t short_side = portrait ? shape.width : shape.height;
  const int64_t long_side = portrait ? shape.height : shape.width;
  const auto long_resized = static_cast<int64_t>(static_cast<double>(shorter * long_side) /
                                                 static_cast<double>(short_side));
  height = portrait ? long_resized : shorter;
  width = portrait ? shorter : long_resized;
}

OutputSpec MakeViewSpec(const NormalizeParams& normalize, const ImageShape& shape,
                        const AugmentOptions& augment, const OutputOptions& output, uint64_t seed,
                        int view, const std::string& option, const OptionNames& names) {
  if (output.type == ElementType::kInt64) {
    throw MakeError(ErrorCode::kUnsupported,
                    "{}: images are delivered as uint8, float32, float16 or bfloat16 (int64 is for "
                    "labels)",
                    NameOption(names, "LoaderOptions", "output.type"));
  }
  const Checker check(names, option);
  const std::string image = Size(shape.height, shape.width);
  check.Require((augment.center_crop_height > 0) == (augment.center_crop_width > 0), "center_crop",
                "is {}; set both sides (> 0) or neither",
                Size(augment.center_crop_height, augment.center_crop_width));
  check.Require(augment.random_crop_padding >= 0 && augment.random_crop_padding <= 4096,
                "random_crop_padding",
                "is {}; it must be in [0, 4096] (pixels of zeros on each side)",
                augment.random_crop_padding);
  check.Require(augment.resize_shorter >= 0 && augment.resize_shorter <= kMaxSide, "resize_shorter",
                "is {}; it must be in [0, {}] (0: no resize)", augment.resize_shorter, kMaxSide);
  check.Require(augment.resize_shorter == 0 || augment.random_crop_padding == 0, "resize_shorter",
                "and {} cannot be combined", check.Name("random_crop_padding"));
  OutputSpec spec;
  spec.normalize = output.type == ElementType::kUint8 ? Identity(normalize.channels) : normalize;
  spec.type = output.type;
  spec.layout = output.layout;
  AugmentParams& a = spec.augment;
  a.seed = seed;
  a.view = view;
  a.image_height = static_cast<int32_t>(shape.height);
  a.image_width = static_cast<int32_t>(shape.width);
  a.random_flip = augment.random_flip;
  a.antialias = augment.antialias;
  a.padding = static_cast<int32_t>(augment.random_crop_padding);
  const RandomResizedCropOptions& crop = augment.random_resized_crop;
  const bool resizes = crop.height > 0 || crop.width > 0 || augment.resize_shorter > 0;
  check.Require(!resizes || (shape.height <= kMaxSide && shape.width <= kMaxSide),
                "random_resized_crop",
                "asks to resize images of {}; sides above {} are not supported", image, kMaxSide);
  if (crop.height > 0 || crop.width > 0) {
    CheckRandomResizedCrop(crop, augment, check);
    a.crop = CropKind::kRandomResized;
    a.out_height = static_cast<int32_t>(crop.height);
    a.out_width = static_cast<int32_t>(crop.width);
    a.resized_crop =
        ResizedCropParams{crop.scale_min, crop.scale_max,           crop.ratio_min,
                          crop.ratio_max, std::log(crop.ratio_min), std::log(crop.ratio_max)};
    return spec;
  }
  const bool cropped = augment.center_crop_height > 0;
  if (augment.resize_shorter > 0) {
    int64_t resized_height = 0;
    int64_t resized_width = 0;
    ResizedSize(shape, augment.resize_shorter, resized_height, resized_width);
    const std::string resized = Size(resized_height, resized_width);
    check.Require(resized_height <= kMaxSide && resized_width <= kMaxSide, "resize_shorter",
                  "resizes {} images to {}; sides above {} are not supported", image, resized,
                  kMaxSide);
    const int64_t out_height = cropped ? augment.center_crop_height : resized_height;
    const int64_t out_width = cropped ? augment.center_crop_width : resized_width;
    check.Require(out_height <= resized_height && out_width <= resized_width, "center_crop",
                  "is {} but {} = {} makes the {} images {}; crop at most the resized size",
                  Size(out_height, out_width), check.Name("resize_shorter"), augment.resize_shorter,
                  image, resized);
    a.crop = CropKind::kResize;
    a.resized_height = static_cast<int32_t>(resized_height);
    a.resized_width = static_cast<int32_t>(resized_width);
    a.out_height = static_cast<int32_t>(out_height);
    a.out_width = static_cast<int32_t>(out_width);
    a.crop_top = Centered(resized_height - out_height);
    a.crop_left = Centered(resized_width - out_width);
    return spec;
  }
  check.Require(
      augment.center_crop_height <= shape.height && augment.center_crop_width <= shape.width,
      "center_crop", "is {} but the images are {}; crop at most the image size",
      Size(augment.center_crop_height, augment.center_crop_width), image);
  const int64_t out_height = cropped ? augment.center_crop_height : shape.height;
  const int64_t out_width = cropped ? augment.center_crop_width : shape.width;
  a.crop = CropKind::kWindow;
  a.out_height = static_cast<int32_t>(out_height);
  a.out_width = static_cast<int32_t>(out_width);
  // torchvision's CenterCrop of the stored image, as after a resize: rounding (H - Ho) / 2 down
  // would start an odd room's crop a pixel above and left of it when the half is x.5 with x odd.
  a.crop_top = Centered(shape.height - out_height);
  a.crop_left = Centered(shape.width - out_width);
  return spec;
}

AugmentParams ForImage(const AugmentParams& params, int64_t height, int64_t width) {
  AugmentParams a = params;
  a.image_height = static_cast<int32_t>(height);
  a.image_width = static_cast<int32_t>(width);
  if (a.crop == CropKind::kResize) {
    const int64_t shorter = std::min(params.resized_height, params.resized_width);
    int64_t resized_height = 0;
    int64_t resized_width = 0;
    ResizedSize(ImageShape{height, width, 3}, shorter, resized_height, resized_width);
    a.resized_height = static_cast<int32_t>(resized_height);
    a.resized_width = static_cast<int32_t>(resized_width);
    a.crop_top = Centered(resized_height - a.out_height);
    a.crop_left = Centered(resized_width - a.out_width);
  }
  return a;
}

OutputSpec MakeOutputSpec(const NormalizeParams& normalize, const ImageShape& shape,
                          const OutputOptions& output, uint64_t seed, const OptionNames& names) {
  return MakeViewSpec(normalize, shape, output.augment, output, seed, 0, "output.augment", names);
}

}  // namespace h5feed::transform
