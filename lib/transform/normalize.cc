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
    // In double, then rounded once: the factors do not depend on how the compiler orders a
    // float expression, so every build (and the GPU stage, which takes these values) agrees.
    params.scale[c] = static_cast<float>(1.0 / (255.0 * static_cast<double>(std[c])));
    params.bias[c] =
        static_cast<float>(-static_cast<double>(mean[c]) / static_cast<double>(std[c]));
  }
  return params;
}

}  // namespace h5feed::transform
