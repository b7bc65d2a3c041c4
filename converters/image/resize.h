#pragma once
// Fits a decoded RGB image to the stored size, writing into caller-provided memory.

#include <cstdint>
#include <span>

namespace h5feed::image {

enum class ResizeMode {
  kCrop,     // scale so the image covers the target (shorter side fits), center-crop: the default
  kStretch,  // scale each side independently to the target (aspect ratio not kept)
  kPad,      // scale so the image fits inside the target (longer side fits), center it on zeros
};

struct Size {
  int height = 0;
  int width = 0;
};

// The smallest decoded size that loses nothing for `mode`: the size of the source image once
// scaled for the target (before cropping or padding). A JPEG can be decoded at a DCT scale
// down to this size without loss of final quality.
Size ScaledSourceSize(Size source, Size target, ResizeMode mode);

// Resizes `src` (src_size, RGB, channels last) into `dest` (target, RGB, channels last).
// Area interpolation when shrinking (OpenCV's INTER_AREA, computed by area_resize.h), bilinear
// when enlarging (cv::resize INTER_LINEAR). Copies when the sizes are equal. Thread-safe.
void ResizeInto(std::span<const uint8_t> src, Size src_size, Size target, ResizeMode mode,
                std::span<uint8_t> dest);

}  // namespace h5feed::image
