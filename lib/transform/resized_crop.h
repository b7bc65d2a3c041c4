#pragma once
// The crop box of torchvision's RandomResizedCrop.get_params (transforms.py, 0.14), drawn from
// h5feed's counter-based generator instead of torch's, the same on the host and the device.
//
// For a stored H x W image (area A = H x W), up to 10 attempts, each drawing two uniforms:
//   target = A x (scale_min + (scale_max - scale_min) u1)          the crop's area
//   aspect = exp(log_ratio_min + (log_ratio_max - log_ratio_min) u2)  w / h, log-uniform
//   w = round(sqrt(target x aspect)),  h = round(sqrt(target / aspect))   (ties to even, as
//                                                                         Python's round)
// and the first attempt with 0 < w <= W and 0 < h <= H takes its top-left corner uniform over
// the positions where it fits: top in [0, H - h], left in [0, W - w]. When all 10 fail, the
// fallback is the central crop with the aspect ratio clamped to [ratio_min, ratio_max]:
// W / H < ratio_min: w = W, h = round(W / ratio_min); W / H > ratio_max: h = H,
// w = round(H x ratio_max); else the whole image (a side is at least 1 pixel); top =
// (H - h) / 2, left = (W - w) / 2 rounded down.
//
// Draws: SplitMix64 seeded with StreamKey(seed, epoch, kResizedCrop, row, copy, view)
// (random_streams.h); u = the top 53 bits of a Next() / 2^53; the corner by SplitMix64::Below.
// Arithmetic in double; exp is PortableExp and sqrt, division and rint are correctly rounded
// on both sides, so a box is the same on every thread count and device. Where torch draws
// its uniforms in float32, these are doubles: the distributions are the same (tested against
// torchvision's over 100,000 draws, tests/python/test_resized_crop.py).
//
// C++17, header-only, host/device-neutral.

#include <cmath>
#include <cstdint>

#include "transform/host_device.h"
#include "transform/portable_exp.h"
#include "transform/random_streams.h"

namespace h5feed::transform {

// The parameters of the draws, fixed for a view (the options, checked by MakeOutputSpec).
struct ResizedCropParams {
  double scale_min = 0.08;
  double scale_max = 1.0;
  double ratio_min = 3.0 / 4.0;
  double ratio_max = 4.0 / 3.0;
  double log_ratio_min = 0;  // log(ratio_min), computed once on the host
  double log_ratio_max = 0;
};

// A window of the stored image: rows [top, top + height), columns [left, left + width).
struct CropBox {
  int32_t top = 0;
  int32_t left = 0;
  int32_t height = 0;
  int32_t width = 0;
  bool fallback = false;  // all 10 attempts failed: the clamped central crop
};

H5FEED_HOST_DEVICE inline CropBox DrawResizedCrop(const ResizedCropParams& params,
                                                  int32_t image_height, int32_t image_width,
                                                  uint64_t key) {
  SplitMix64 draws(key);
  const double area = static_cast<double>(image_height) * static_cast<double>(image_width);
  CropBox box;
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double target =
        area * (params.scale_min + (params.scale_max - params.scale_min) * draws.Uniform());
    const double aspect = PortableExp(
        params.log_ratio_min + (params.log_ratio_max - params.log_ratio_min) * draws.Uniform());
    const double width = rint(sqrt(target * aspect));
    const double height = rint(sqrt(target / aspect));
    if (width > 0 && width <= image_width && height > 0 && height <= image_height) {
      box.height = static_cast<int32_t>(height);
      box.width = static_cast<int32_t>(width);
      const auto rows = static_cast<uint64_t>(image_height - box.height) + 1;
      const auto columns = static_cast<uint64_t>(image_width - box.width) + 1;
      box.top = static_cast<int32_t>(draws.Below(rows));
      box.left = static_cast<int32_t>(draws.Below(columns));
      return box;
    }
  }
  box.fallback = true;
  const double in_ratio = static_cast<double>(image_width) / static_cast<double>(image_height);
  box.height = image_height;
  box.width = image_width;
  if (in_ratio < params.ratio_min) {
    box.height = static_cast<int32_t>(rint(image_width / params.ratio_min));
  } else if (in_ratio > params.ratio_max) {
    box.width = static_cast<int32_t>(rint(image_height * params.ratio_max));
  }
  // A ratio range far from the image's (a 1-pixel-wide image and ratio_min > 2) would round
  // a side to 0, an empty crop torchvision fails on; one pixel is the least there is.
  if (box.height < 1) box.height = 1;
  if (box.width < 1) box.width = 1;
  box.top = (image_height - box.height) / 2;
  box.left = (image_width - box.width) / 2;
  return box;
}

}  // namespace h5feed::transform
