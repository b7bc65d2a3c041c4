#pragma once
// The bilinear resize of one axis, as torchvision's tensor resize computes it (PyTorch's
// interpolate, mode "bilinear", align_corners=False, with or without antialias), written once
// for the CPU path (resize_sample.cc) and the GPU kernel.
//
// An axis maps a window of the stored image, [src_begin, src_begin + src_size), resized to
// `resized` pixels, of which the delivered ones are [offset, offset + out) (a center crop of
// the resized image; offset 0 and out = resized for a resized crop). With scale = src_size /
// resized and half-pixel centres, delivered pixel i (resized pixel r = i + offset) takes, in
// window coordinates:
//   antialias (PyTorch's _upsample_bilinear2d_aa, PIL's bilinear): the triangle filter of
//     half-width support = max(scale, 1) (it widens with the reduction) around
//     c = scale x (r + 0.5): taps first = max(int(c - support + 0.5), 0) up to
//     last = min(int(c + support + 0.5), src_size), weight(j) = max(0, 1 - |(j - c + 0.5) /
//     support|), normalised to sum 1;
//   without (PyTorch's upsample_bilinear2d): s = max(scale x (r + 0.5) - 0.5, 0), i0 = int(s),
//     weights 1 - (s - i0) and s - i0 on i0 and i0 + 1, or the weight 1 on i0 when it is the
//     window's last pixel.
// A window of fractional ends (fraction_begin, fraction_size) takes scale = fraction_size /
// resized and adds fraction_begin to c and to s: the same filter over the stored pixels the
// window overlaps.
// Each formula is PyTorch's own, with the precision of each step as its float kernels have it
// (scale in float; the source position in double, its fraction then rounded to float; the aa
// weights in float): the weights equal PyTorch's bit for bit (measured on its impulse
// responses for shrinking and enlarging, both modes). Each delivered value
// is a sum of weight x pixel products taken in tap order from 0 (an exact zero start),
// horizontal pass first (PyTorch's order), never fused (FMA-free), so the CPU and the GPU agree
// bit for bit. A resized pixel of uint8 input is then rounded to nearest, ties to even
// (torch.round), and clamped to 0..255: RoundToByte.
//
// C++17, header-only, host/device-neutral.

#include <cstdint>

#include "transform/host_device.h"

namespace h5feed::transform {

struct ResizeAxis {
  int32_t src_begin = 0;  // the window's first stored pixel
  int32_t src_size = 0;   // its length (>= 1)
  int32_t resized = 0;    // the window's length once resized (>= 1)
  int32_t offset = 0;     // the first delivered pixel of the resized window
  int32_t out = 0;        // delivered pixels
  // A window whose ends fall inside stored pixels (a crop box mapped into an image decoded at
  // 1/2, 1/4 or 1/8 scale): it starts `fraction_begin` pixels into src_begin and is
  // `fraction_size` pixels long, within [src_begin, src_begin + src_size). 0, 0: the whole
  // pixels. Rounding the ends to whole pixels instead moved a box by up to half a scaled
  // pixel, 4 stored pixels at 1/8. The CPU's resize only (cuda/shared_geometry.h carries the
  // integers): an image decoded scaled is cropped on the CPU.
  float fraction_begin = 0.0f;
  float fraction_size = 0.0f;

  H5FEED_HOST_DEVICE float scale() const {
    const float size = fraction_size > 0.0f ? fraction_size : static_cast<float>(src_size);
    return size / static_cast<float>(resized);
  }
};

// The antialiased filter's half-width for an axis (see above).
H5FEED_HOST_DEVICE inline float FilterSupport(const ResizeAxis& axis) {
  const float scale = axis.scale();
  return scale > 1.0f ? scale : 1.0f;
}

// The most taps any delivered pixel of the axis takes: 2 without antialias, else
// 2 x ceil(support) + 1; never more than the window holds.
H5FEED_HOST_DEVICE inline int MaxTaps(const ResizeAxis& axis, bool antialias) {
  int taps = 2;
  if (antialias) {
    const float support = FilterSupport(axis);
    taps = 2 * static_cast<int>(support) + 1;
    if (static_cast<float>(static_cast<int>(support)) < support) taps += 2;  // ceil
  }
  return taps < axis.src_size ? taps : axis.src_size;
}

// The taps of delivered pixel i: writes count weights to `weights` (room for MaxTaps) and
// returns the first tap as a stored-image index; *count receives the number of taps.
H5FEED_HOST_DEVICE inline int32_t ComputeTaps(const ResizeAxis& axis, bool antialias, int32_t i,
                                              float* weights, int* count) {
  const float scale = axis.scale();
  const double resized = static_cast<double>(i + axis.offset) + 0.5;
  if (!antialias) {
    double source = static_cast<double>(scale) * resized - 0.5 + axis.fraction_begin;
    if (source < 0.0) source = 0.0;
    const int first = static_cast<int>(source);
    const auto fraction = static_cast<float>(source - first);
    if (first < axis.src_size - 1) {
      weights[0] = 1.0f - fraction;
      weights[1] = fraction;
      *count = 2;
    } else {
      weights[0] = 1.0f;
      *count = 1;
    }
    return axis.src_begin + first;
  }
  const float support = FilterSupport(axis);
  const float inverse_support = scale > 1.0f ? static_cast<float>(1.0 / scale) : 1.0f;
  const auto center =
      static_cast<float>(static_cast<double>(scale) * resized + axis.fraction_begin);
  int first = static_cast<int>(static_cast<double>(center - support) + 0.5);
  if (first < 0) first = 0;
  int last = static_cast<int>(static_cast<double>(center + support) + 0.5);
  if (last > axis.src_size) last = axis.src_size;
  float total = 0.0f;
  for (int j = 0; j < last - first; ++j) {
    const double offset = static_cast<double>(static_cast<float>(j + first) - center) + 0.5;
    float distance = static_cast<float>(offset * inverse_support);
    if (distance < 0.0f) distance = -distance;
    const float weight = distance < 1.0f ? 1.0f - distance : 0.0f;
    weights[j] = weight;
    total = total + weight;
  }
  if (total != 0.0f) {
    for (int j = 0; j < last - first; ++j) weights[j] = weights[j] / total;
  }
  *count = last - first;
  return axis.src_begin + first;
}

// A resized value of uint8 input, rounded to nearest (ties to even, as torch.round) and
// clamped to 0..255. Adding and subtracting 1.5 x 2^23 rounds a float below 2^22 to an integer
// in the current (nearest-even) rounding mode: one instruction pair on both sides, where rintf
// is a library call on x86-64 without SSE4.1.
H5FEED_HOST_DEVICE inline uint8_t RoundToByte(float value) {
  constexpr float kRound = 12582912.0f;  // 1.5 x 2^23
  float rounded = (value + kRound) - kRound;
  if (rounded < 0.0f) rounded = 0.0f;
  if (rounded > 255.0f) rounded = 255.0f;
  return static_cast<uint8_t>(rounded);
}

}  // namespace h5feed::transform
