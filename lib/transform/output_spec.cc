#include "transform/output_spec.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "h5feed/error.h"
#include "h5feed/image_shape.h"

namespace h5feed::transform {
namespace {

// Sizes the kernels' int32 arithmetic and the taps' float centres stay exact for.
constexpr int64_t kMaxSide = 1 << 16;

std::string Size(int64_t height, int64_t width) {
  return std::to_string(height) + "x" + std::to_string(width);
}

// The option's checks, each naming it ("LoaderOptions.output.views[1].resize_shorter ...").
class Checker {
 public:
  explicit Checker(std::string option) : option_("LoaderOptions." + std::move(option) + ".") {}
  void Require(bool condition, const std::string& what) const {
    if (!condition) throw Error(ErrorCode::kInvalidArgument, option_ + what);
  }

 private:
  const std::string option_;
};

void CheckRandomResizedCrop(const RandomResizedCropOptions& crop, const AugmentOptions& augment,
                            const Checker& check) {
  check.Require(
      crop.height > 0 && crop.width > 0 && crop.height <= kMaxSide && crop.width <= kMaxSide,
      "random_resized_crop is " + Size(crop.height, crop.width) + "; set both sides, each in [1, " +
          std::to_string(kMaxSide) + "]");
  check.Require(augment.center_crop_height == 0 && augment.center_crop_width == 0 &&
                    augment.resize_shorter == 0 && augment.random_crop_padding == 0,
                "random_resized_crop is its own crop: leave center_crop, resize_shorter and "
                "random_crop_padding at 0 (or use another view)");
  check.Require(std::isfinite(crop.scale_min) && std::isfinite(crop.scale_max) &&
                    crop.scale_min > 0 && crop.scale_min <= crop.scale_max,
                "random_resized_crop.scale is (" + std::to_string(crop.scale_min) + ", " +
                    std::to_string(crop.scale_max) +
                    "); it must be 0 < scale_min <= scale_max (fractions of the image's area)");
  check.Require(std::isfinite(crop.ratio_min) && std::isfinite(crop.ratio_max) &&
                    crop.ratio_min > 0 && crop.ratio_min <= crop.ratio_max &&
                    crop.ratio_max / crop.ratio_min < 1e6,
                "random_resized_crop.ratio is (" + std::to_string(crop.ratio_min) + ", " +
                    std::to_string(crop.ratio_max) +
                    "); it must be 0 < ratio_min <= ratio_max (width / height), "
                    "within a factor of 10^6");
}

// torchvision's center_crop offset: int(round(room / 2.0)), Python's round (ties to even);
// std::rint rounds the same way in the default rounding mode.
int32_t Centered(int64_t room) {
  return static_cast<int32_t>(std::rint(static_cast<double>(room) / 2));
}

// The size Resize(S) gives an H x W image (torchvision's _compute_resized_output_size): the
// shorter side S, the longer int(S x long / short), truncated.
void ResizedSize(const ImageShape& shape, int64_t shorter, int64_t& height, int64_t& width) {
  const bool portrait = shape.width <= shape.height;
  const int64_t short_side = portrait ? shape.width : shape.height;
  const int64_t long_side = portrait ? shape.height : shape.width;
  const auto long_resized = static_cast<int64_t>(static_cast<double>(shorter * long_side) /
                                                 static_cast<double>(short_side));
  height = portrait ? long_resized : shorter;
  width = portrait ? shorter : long_resized;
}

}  // namespace

OutputSpec MakeViewSpec(const NormalizeParams& normalize, const ImageShape& shape,
                        const AugmentOptions& augment, const OutputOptions& output, uint64_t seed,
                        int view, const std::string& option) {
  if (output.type != ElementType::kFloat32 && output.type != ElementType::kFloat16 &&
      output.type != ElementType::kBFloat16) {
    throw Error(ErrorCode::kUnsupported,
                "LoaderOptions.output.type: normalized images are float32, float16 or "
                "bfloat16 (uint8 is what normalize = false delivers; int64 is for labels)");
  }
  const Checker check(option);
  const std::string image = Size(shape.height, shape.width);
  check.Require((augment.center_crop_height > 0) == (augment.center_crop_width > 0),
                "center_crop_height and center_crop_width are " +
                    std::to_string(augment.center_crop_height) + " and " +
                    std::to_string(augment.center_crop_width) + "; set both (> 0) or neither");
  check.Require(augment.random_crop_padding >= 0 && augment.random_crop_padding <= 4096,
                "random_crop_padding is " + std::to_string(augment.random_crop_padding) +
                    "; it must be in [0, 4096] (pixels of zeros on each side)");
  check.Require(augment.resize_shorter >= 0 && augment.resize_shorter <= kMaxSide,
                "resize_shorter is " + std::to_string(augment.resize_shorter) +
                    "; it must be in [0, " + std::to_string(kMaxSide) + "] (0: no resize)");
  check.Require(augment.resize_shorter == 0 || augment.random_crop_padding == 0,
                "resize_shorter and random_crop_padding cannot be combined");
  OutputSpec spec;
  spec.normalize = normalize;
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
                "asks to resize images of " + image + "; sides above " + std::to_string(kMaxSide) +
                    " are not supported");
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
    check.Require(resized_height <= kMaxSide && resized_width <= kMaxSide,
                  "resize_shorter resizes " + image + " images to " + resized + "; sides above " +
                      std::to_string(kMaxSide) + " are not supported");
    const int64_t out_height = cropped ? augment.center_crop_height : resized_height;
    const int64_t out_width = cropped ? augment.center_crop_width : resized_width;
    check.Require(out_height <= resized_height && out_width <= resized_width,
                  "center_crop is " + Size(out_height, out_width) + " but resize_shorter = " +
                      std::to_string(augment.resize_shorter) + " makes the " + image + " images " +
                      resized + "; crop at most the resized size");
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
      "center_crop is " + Size(augment.center_crop_height, augment.center_crop_width) +
          " but the images are " + image + "; crop at most the image size");
  const int64_t out_height = cropped ? augment.center_crop_height : shape.height;
  const int64_t out_width = cropped ? augment.center_crop_width : shape.width;
  a.crop = CropKind::kWindow;
  a.out_height = static_cast<int32_t>(out_height);
  a.out_width = static_cast<int32_t>(out_width);
  a.crop_top = static_cast<int32_t>((shape.height - out_height) / 2);
  a.crop_left = static_cast<int32_t>((shape.width - out_width) / 2);
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
                          const OutputOptions& output, uint64_t seed) {
  return MakeViewSpec(normalize, shape, output.augment, output, seed, 0, "output.augment");
}

OutputSpec PlainOutputSpec(const NormalizeParams& normalize, const ImageShape& shape) {
  return MakeOutputSpec(normalize, shape, OutputOptions{}, 0);
}

}  // namespace h5feed::transform
