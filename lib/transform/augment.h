#pragma once
// Per-sample augmentation of one delivered view as a pure function of (seed, epoch, dataset
// row, echo copy, view), written once for the CPU path and the GPU kernel: no generator
// state, so the result depends neither on threads, nor on the order samples are processed
// in, nor on the device (counter-based draws, as Philox is in cuRAND).
//
// Geometry (CropKind), for a stored H x W image and the delivered Ho x Wo:
//   kWindow: no resizing. A center window at (top, left) = ((H - Ho) / 2, (W - Wo) / 2)
//     rounded to nearest, ties to even, as torchvision's CenterCrop (the whole image without
//     a center crop), then optionally the random crop
//     with padding P (torchvision's RandomCrop(size, padding=P), CIFAR-style): the window
//     padded with P zero pixels on every side, an Ho x Wo crop of it at offset (oy, ox), each
//     uniform in [0, 2P]. Delivered pixel (y, x) is stored pixel (top + sy, left + sx) with
//       sy = y + oy - P,  sx = (flip ? Wo - 1 - x : x) + ox - P,
//     or a zero (uint8 0, so (0/255 - mean)/std after normalizing, as torchvision pads before
//     ToTensor/Normalize) when sy or sx falls outside [0, Ho) x [0, Wo).
//   kRandomResized: torchvision's RandomResizedCrop: a box drawn as resized_crop.h says,
//     resized (resize_taps.h) to Ho x Wo.
//   kResize: torchvision's Resize(S) then CenterCrop(Ho, Wo): the whole image resized to
//     resized_height x resized_width, of which the Ho x Wo at (crop_top, crop_left) is
//     delivered (computed on the fly from the stored image).
// Then the random flip: the delivered view mirrored left-right with probability 1/2 (after
// cropping and resizing, as torchvision's crop then RandomHorizontalFlip; an index change).
//
// Draws (random_streams.h): a SplitMix64 seeded with
//   StreamKey(seed, epoch, kAugment, row, copy, view)
// gives flip = bit 63 of its first output, then oy and ox = Below(2P + 1); the resized crop's
// box comes from its own stream, kResizedCrop (resized_crop.h).
//
// C++17, header-only, host/device-neutral.

#include <cstdint>

#include "transform/host_device.h"
#include "transform/random_streams.h"
#include "transform/resize_taps.h"
#include "transform/resized_crop.h"

namespace h5feed::transform {

enum class CropKind : int32_t { kWindow = 0, kRandomResized = 1, kResize = 2 };

// The delivered geometry and the draws' seed, fixed for a view of a loader (passed to kernels
// by value). Only out_height and out_width change between epochs (Loader::SetOutputSize).
struct AugmentParams {
  uint64_t seed = 0;
  int32_t view = 0;  // the view's index: a key part of its draws
  CropKind crop = CropKind::kWindow;
  int32_t out_height = 0;    // Ho
  int32_t out_width = 0;     // Wo
  int32_t crop_top = 0;      // kWindow: the center window's origin in the stored image;
  int32_t crop_left = 0;     // kResize: the delivered part's origin in the resized image
  int32_t padding = 0;       // kWindow: P, a random crop when > 0
  int32_t image_height = 0;  // the stored image (H, W)
  int32_t image_width = 0;
  int32_t resized_height = 0;  // kResize: the whole image's size once resized
  int32_t resized_width = 0;
  bool random_flip = false;
  bool antialias = true;           // kRandomResized, kResize: widen the filter when shrinking
  ResizedCropParams resized_crop;  // kRandomResized

  H5FEED_HOST_DEVICE bool random() const {
    return padding > 0 || random_flip || crop == CropKind::kRandomResized;
  }
  H5FEED_HOST_DEVICE bool resizes() const { return crop != CropKind::kWindow; }
};

// One sample's draws. kWindow: delivered (y, x) reads window pixel (y + shift_y, mirror(x) +
// shift_x). Resizing kinds: delivered (y, x) is the resize of `rows` and `columns` at
// (y, mirror(x)).
struct SampleTransform {
  int32_t shift_y = 0;  // oy - P
  int32_t shift_x = 0;  // ox - P
  bool flip = false;
  ResizeAxis rows;
  ResizeAxis columns;
};

H5FEED_HOST_DEVICE inline SampleTransform DrawTransform(const AugmentParams& params, int64_t epoch,
                                                        int64_t row, int copy) {
  SampleTransform transform;
  if (params.random_flip || params.padding > 0) {
    SplitMix64 draws(StreamKey(params.seed, epoch, RandomStream::kAugment, row, copy, params.view));
    transform.flip = params.random_flip && (draws.Next() >> 63) != 0;
    if (params.padding > 0) {
      const uint64_t choices = 2 * static_cast<uint64_t>(params.padding) + 1;
      transform.shift_y = static_cast<int32_t>(draws.Below(choices)) - params.padding;
      transform.shift_x = static_cast<int32_t>(draws.Below(choices)) - params.padding;
    }
  }
  if (params.crop == CropKind::kRandomResized) {
    const CropBox box = DrawResizedCrop(
        params.resized_crop, params.image_height, params.image_width,
        StreamKey(params.seed, epoch, RandomStream::kResizedCrop, row, copy, params.view));
    transform.rows = {box.top, box.height, params.out_height, 0, params.out_height};
    transform.columns = {box.left, box.width, params.out_width, 0, params.out_width};
  } else if (params.crop == CropKind::kResize) {
    transform.rows = {0, params.image_height, params.resized_height, params.crop_top,
                      params.out_height};
    transform.columns = {0, params.image_width, params.resized_width, params.crop_left,
                         params.out_width};
  }
  return transform;
}

// The delivered column read by delivered column x before the flip: kWindow, relative to the
// window (may lie outside [0, out_width): a padding zero); resizing kinds, the resized column.
H5FEED_HOST_DEVICE inline int32_t SourceColumn(const AugmentParams& params,
                                               const SampleTransform& transform, int32_t x) {
  return (transform.flip ? params.out_width - 1 - x : x) + transform.shift_x;
}

}  // namespace h5feed::transform
