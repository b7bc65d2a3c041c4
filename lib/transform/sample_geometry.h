#pragma once
// Where a delivered sample's pixels come from in its stored image: the geometry of one view of
// one sample, made once from the sample's draws (augment.h) and applied to every geometric
// column of the sample (design: "geometry once per sample"): images by the bilinear resize
// (resize_taps.h), masks by nearest neighbour (mask_geometry.h), boxes by coordinate arithmetic
// (box_geometry.h). Also the geometry of a conversion's resize (PlacedGeometry), which maps a
// source image onto its stored size.
//
// Each axis is a ResizeAxis read as a map from stored to delivered pixels: the window
// [src_begin, src_begin + src_size) of the stored image is resized to `resized` pixels, and
// delivered pixel i is resized pixel r = i + offset. A delivered pixel whose r lies outside
// [0, resized) shows nothing of the stored image (a padding pixel: random_crop_padding, or a
// conversion's `pad` border); `offset` is negative for the padding before the image. Then, when
// `flip` is set, every delivered row is mirrored (delivered x shows unflipped x' = Wo - 1 - x),
// after the crop and resize, as torchvision's RandomHorizontalFlip follows its crop.
//
// For every crop kind this is the image's own geometry (augment.h):
//   kRandomResized  the box: {left, width, Wo, 0, Wo} (rows: {top, height, Ho, 0, Ho});
//   kResize         the whole image resized, then the center crop: {0, W, resized_width,
//                   crop_left, Wo};
//   kWindow         the center window, shifted by the random crop: {crop_left, Wo, Wo,
//                   shift_x, Wo}, so a window pixel outside the window is padding, as
//                   torchvision's RandomCrop(padding) pads the (center-cropped) image.
//
// C++17, header-only, host/device-neutral (the GPU stage crops masks with NearestSource).

#include <cmath>
#include <cstdint>

#include "transform/augment.h"
#include "transform/host_device.h"
#include "transform/resize_taps.h"
#include "transform/resized_crop.h"

namespace h5feed::transform {

struct SampleGeometry {
  ResizeAxis rows;     // Ho = rows.out
  ResizeAxis columns;  // Wo = columns.out
  bool flip = false;   // delivered rows mirrored left-right, last
};

// The geometry of `box` of the stored image resized to out_height x out_width, then flipped
// when `flip`: torchvision's resized_crop(x, top, left, height, width, [out_height, out_width]).
H5FEED_HOST_DEVICE inline SampleGeometry ResizedCropGeometry(const CropBox& box, int32_t out_height,
                                                             int32_t out_width, bool flip) {
  SampleGeometry geometry;
  geometry.rows = {box.top, box.height, out_height, 0, out_height};
  geometry.columns = {box.left, box.width, out_width, 0, out_width};
  geometry.flip = flip;
  return geometry;
}

// The geometry of the view `params` describes for one sample whose draws are `transform`
// (DrawTransform(params, epoch, row, copy): the same draws the image got). For a file of images
// at their own size, `params` is the image's crop (ForImage) and the flip is the delivered
// view's (own_size_views.h): set `flip` from that view's draws.
H5FEED_HOST_DEVICE inline SampleGeometry GeometryOf(const AugmentParams& params,
                                                    const SampleTransform& transform) {
  SampleGeometry geometry;
  geometry.flip = transform.flip;
  if (params.crop == CropKind::kWindow) {
    geometry.rows = {params.crop_top, params.out_height, params.out_height, transform.shift_y,
                     params.out_height};
    geometry.columns = {params.crop_left, params.out_width, params.out_width, transform.shift_x,
                        params.out_width};
  } else {
    geometry.rows = transform.rows;
    geometry.columns = transform.columns;
  }
  return geometry;
}

// The geometry of a conversion's resize: the source rows [source_top, source_top +
// source_height) resized to target_height rows placed at target_top of a stored image of
// stored_height rows (and so for columns); stored pixels outside the placed target are the
// padding. The converter's modes (converters/image/resize.h, PlaceResize, which gives the two
// parts) place them as: stretch and --max-side, the whole source onto the whole stored image;
// crop, a centered part of the source onto the whole stored image; pad, the whole source onto a
// centered part of it.
struct Placement1D {
  int32_t source_begin = 0;
  int32_t source_size = 0;
  int32_t target_begin = 0;
  int32_t target_size = 0;
  int32_t stored = 0;
};
H5FEED_HOST_DEVICE inline ResizeAxis PlacedAxis(const Placement1D& p) {
  return {p.source_begin, p.source_size, p.target_size, -p.target_begin, p.stored};
}
H5FEED_HOST_DEVICE inline SampleGeometry PlacedGeometry(const Placement1D& rows,
                                                        const Placement1D& columns) {
  SampleGeometry geometry;
  geometry.rows = PlacedAxis(rows);
  geometry.columns = PlacedAxis(columns);
  return geometry;
}

// The stored pixel that delivered pixel i (0 <= i < axis.out, before the flip) shows by
// nearest neighbour, or -1 for a padding pixel. The rule is PyTorch's interpolate(mode=
// "nearest"), which torchvision's NEAREST resize of a tensor calls: with scale =
// float(src_size) / float(resized), resized pixel r shows window pixel
// min(floor(float(r) x scale), src_size - 1), each step in float as PyTorch computes it
// (upsample nearest, CPU and CUDA), so the index is PyTorch's exactly. It is not the
// "nearest-exact" rule (half-pixel centres): torchvision's NEAREST is PyTorch's legacy nearest.
H5FEED_HOST_DEVICE inline int32_t NearestSource(const ResizeAxis& axis, int32_t i) {
  const int32_t r = i + axis.offset;
  if (r < 0 || r >= axis.resized) return -1;
  const float scale = static_cast<float>(axis.src_size) / static_cast<float>(axis.resized);
  int32_t source = static_cast<int32_t>(floorf(static_cast<float>(r) * scale));
  if (source > axis.src_size - 1) source = axis.src_size - 1;
  return axis.src_begin + source;
}

// Coordinate x of the stored image (a box edge, in pixel units: 0 is the left edge of pixel 0)
// in delivered coordinates of the axis, before the flip: clipped to the window, scaled to the
// resized window, moved by the offset and clipped to [0, out]. The steps and their float
// precision are torchvision.transforms.v2's for bounding boxes (crop: subtract the corner and
// clamp to the crop; resize: multiply by float32(new / old); center crop: subtract and clamp).
H5FEED_HOST_DEVICE inline float MapCoordinate(const ResizeAxis& axis, float x) {
  float window = x - static_cast<float>(axis.src_begin);
  const auto size = static_cast<float>(axis.src_size);
  window = window < 0.0f ? 0.0f : (window > size ? size : window);
  const auto ratio = static_cast<float>(static_cast<double>(axis.resized) / axis.src_size);
  float delivered = window * ratio - static_cast<float>(axis.offset);
  const auto out = static_cast<float>(axis.out);
  delivered = delivered < 0.0f ? 0.0f : (delivered > out ? out : delivered);
  return delivered;
}

}  // namespace h5feed::transform
