#pragma once
// Per-sample augmentation (flip, random crop with zero padding, center crop) as a pure function
// of (seed, epoch, dataset row, echo copy), written once for the CPU path and the GPU kernel:
// no generator state, so the result depends neither on threads, nor on the order samples are
// processed in, nor on the device (a counter-based generator, as Philox is in cuRAND).
//
// Geometry, for a stored H x W image and the delivered Ho x Wo:
//   - center crop (Ho, Wo <= H, W): the window at (top, left) = ((H - Ho) / 2, (W - Wo) / 2),
//     rounded down; without it Ho x Wo = H x W and the window is the whole image;
//   - random crop with padding P (torchvision's RandomCrop(size, padding=P), CIFAR-style): the
//     window padded with P zero pixels on every side, an Ho x Wo crop of it taken at offset
//     (oy, ox), each uniform in [0, 2P];
//   - random flip: the crop mirrored left-right with probability 1/2 (after cropping, as
//     torchvision's RandomCrop then RandomHorizontalFlip).
// Delivered pixel (y, x) is then stored pixel (top + sy, left + sx) with
//   sy = y + oy - P,  sx = (flip ? Wo - 1 - x : x) + ox - P,
// or a zero (uint8 0, so (0/255 - mean)/std after normalizing, as torchvision pads before
// ToTensor/Normalize) when sy or sx falls outside [0, Ho) x [0, Wo).
//
// Draws (transform/random_streams.h): k = StreamKey(seed, kAugment, epoch, row) ^ copy;
// flip = bit 63 of Mix(k); oy = hi32(Mix(k ^ 1)) x (2P + 1) >> 32, ox the same from
// Mix(k ^ 2). The multiply-shift has a bias below (2P + 1) / 2^32 (< 1e-7 for P < 100), far
// under what any statistic of a training run could see.
//
// C++17, header-only, host/device-neutral.

#include <cstdint>

#include "transform/host_device.h"
#include "transform/random_streams.h"

namespace h5feed::transform {

// The delivered geometry and the draws' seed, fixed for a loader (passed to kernels by value).
struct AugmentParams {
  uint64_t seed = 0;
  int32_t out_height = 0;   // Ho
  int32_t out_width = 0;    // Wo
  int32_t crop_top = 0;     // the center window's origin in the stored image
  int32_t crop_left = 0;
  int32_t padding = 0;      // P: random crop when > 0
  bool random_flip = false;

  H5FEED_HOST_DEVICE bool random() const { return padding > 0 || random_flip; }
};

// One sample's draws: delivered (y, x) reads window pixel (y + shift_y, mirror(x) + shift_x).
struct SampleTransform {
  int32_t shift_y = 0;  // oy - P
  int32_t shift_x = 0;  // ox - P
  bool flip = false;
};

H5FEED_HOST_DEVICE inline uint64_t AugmentKey(uint64_t seed, int64_t epoch, int64_t row,
                                              int copy) {
  return StreamKey(seed, RandomStream::kAugment, epoch, row) ^ KeyPart(copy);
}

H5FEED_HOST_DEVICE inline SampleTransform DrawTransform(const AugmentParams& params,
                                                        int64_t epoch, int64_t row, int copy) {
  SampleTransform transform;
  if (!params.random()) return transform;
  const uint64_t key = AugmentKey(params.seed, epoch, row, copy);
  transform.flip = params.random_flip && (Mix(key) >> 63) != 0;
  if (params.padding > 0) {
    const uint64_t choices = 2 * static_cast<uint64_t>(params.padding) + 1;
    const uint64_t oy = ((Mix(key ^ 1) >> 32) * choices) >> 32;
    const uint64_t ox = ((Mix(key ^ 2) >> 32) * choices) >> 32;
    transform.shift_y = static_cast<int32_t>(oy) - params.padding;
    transform.shift_x = static_cast<int32_t>(ox) - params.padding;
  }
  return transform;
}

// The stored column read by delivered column x, relative to the window (may lie outside
// [0, out_width): a padding zero).
H5FEED_HOST_DEVICE inline int32_t SourceColumn(const AugmentParams& params,
                                               const SampleTransform& transform, int32_t x) {
  return (transform.flip ? params.out_width - 1 - x : x) + transform.shift_x;
}

}  // namespace h5feed::transform
