#include "transform/output_spec.h"

#include <string>

#include "h5feed/error.h"
#include "h5feed/image_shape.h"

namespace h5feed::transform {
namespace {

void Require(bool condition, const std::string& what) {
  if (!condition) throw Error(ErrorCode::kInvalidArgument, "LoaderOptions.output." + what);
}

}  // namespace

OutputSpec MakeOutputSpec(const NormalizeParams& normalize, const ImageShape& shape,
                          const OutputOptions& output, uint64_t seed) {
  if (output.type != ElementType::kFloat32 && output.type != ElementType::kFloat16 &&
      output.type != ElementType::kBFloat16) {
    throw Error(ErrorCode::kUnsupported,
                "LoaderOptions.output.type: normalized images are float32, float16 or "
                "bfloat16 (uint8 is what normalize = false delivers; int64 is for labels)");
  }
  const AugmentOptions& augment = output.augment;
  const std::string image = std::to_string(shape.height) + "x" + std::to_string(shape.width);
  Require((augment.center_crop_height > 0) == (augment.center_crop_width > 0),
          "augment.center_crop_height and center_crop_width are " +
              std::to_string(augment.center_crop_height) + " and " +
              std::to_string(augment.center_crop_width) + "; set both (> 0) or neither");
  Require(augment.center_crop_height <= shape.height && augment.center_crop_width <= shape.width,
          "augment.center_crop is " + std::to_string(augment.center_crop_height) + "x" +
              std::to_string(augment.center_crop_width) + " but the images are " + image +
              "; crop at most the image size");
  Require(augment.random_crop_padding >= 0 && augment.random_crop_padding <= 4096,
          "augment.random_crop_padding is " + std::to_string(augment.random_crop_padding) +
              "; it must be in [0, 4096] (pixels of zeros on each side)");
  OutputSpec spec;
  spec.normalize = normalize;
  spec.type = output.type;
  spec.layout = output.layout;
  const bool cropped = augment.center_crop_height > 0;
  const int64_t out_height = cropped ? augment.center_crop_height : shape.height;
  const int64_t out_width = cropped ? augment.center_crop_width : shape.width;
  spec.augment.seed = seed;
  spec.augment.out_height = static_cast<int32_t>(out_height);
  spec.augment.out_width = static_cast<int32_t>(out_width);
  spec.augment.crop_top = static_cast<int32_t>((shape.height - out_height) / 2);
  spec.augment.crop_left = static_cast<int32_t>((shape.width - out_width) / 2);
  spec.augment.padding = static_cast<int32_t>(augment.random_crop_padding);
  spec.augment.random_flip = augment.random_flip;
  return spec;
}

OutputSpec PlainOutputSpec(const NormalizeParams& normalize, const ImageShape& shape) {
  return MakeOutputSpec(normalize, shape, OutputOptions{}, 0);
}

}  // namespace h5feed::transform
