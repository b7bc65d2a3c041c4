#include "transform/normalize.h"

#include <cmath>
#include <string>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::transform {

NormalizeParams MakeNormalizeParams(const float* mean, const float* std, int count, int channels) {
  if (channels < 1 || channels > count || channels > NormalizeParams::kMaxChannels) {
    throw MakeError(
        ErrorCode::kUnsupported,
        "normalize: images have {} channels but {} means and stds are given (normalize handles 1 "
        "to 3 channels)",
        channels, count);
  }
  NormalizeParams params;
  params.channels = channels;
  for (int c = 0; c < channels; ++c) {
    if (!std::isfinite(mean[c]) || !std::isfinite(std[c]) || !(std[c] > 0)) {
      throw MakeError(
          ErrorCode::kInvalidArgument,
          "normalize: channel {} has mean {} and std {}; std must be a positive number and both "
          "finite",
          c, mean[c], std[c]);
    }
    // A mean is a mean of x / 255, so it lies in 0..1. One above 1 is the 0..255 convention
    // (mmcv's and many configs' 123.675, 116.28, 103.53), which would train silently on images
    // flattened to about -2 everywhere.
    if (!(mean[c] >= 0.0f && mean[c] <= 1.0f)) {
      throw MakeError(
          ErrorCode::kInvalidArgument,
          "normalize: channel {} has mean {}, outside 0..1: mean and std are on the 0..1 scale of "
          "x / 255 (ImageNet's mean is 0.485, 0.456, 0.406 and its std 0.229, 0.224, 0.225); "
          "divide values on the 0..255 scale by 255",
          c, mean[c]);
    }
    // In double, then rounded once: the factors do not depend on how the compiler orders a
    // float expression, so every build (and the GPU stage, which takes these values) agrees.
    params.scale[c] = static_cast<float>(1.0 / (255.0 * static_cast<double>(std[c])));
    params.bias[c] =
        static_cast<float>(-static_cast<double>(mean[c]) / static_cast<double>(std[c]));
  }
  return params;
}

}  // namespace h5feed::transform
