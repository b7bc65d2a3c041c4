#pragma once
// A segmentation mask through its sample's geometry (sample_geometry.h), on the CPU: cropped
// with the image's box, resized by nearest neighbour (class ids are never blended) and mirrored
// with the image's flip. For a resized crop the result equals, pixel for pixel,
//   torchvision.transforms.functional.resized_crop(mask, top, left, height, width, size,
//                                                  InterpolationMode.NEAREST)
// then hflip when the image was flipped; for Resize then CenterCrop, and for the random crop
// with padding, torchvision's same transforms on the mask with NEAREST and fill `fill`.
// A conversion's resize (PlacedGeometry) uses the same rule, so a converted file's mask is the
// nearest resize of its source mask to the image's stored size.
//
// Masks are one value per pixel, uint8 or uint16 (more than 256 classes), rows packed in the
// stored mask. Thread-safe: a pure function of its arguments; no allocation beyond a per-thread
// column table reused from one call to the next.

#include <cstdint>
#include <span>

#include "transform/sample_geometry.h"

namespace h5feed::transform {

// The stored mask's extent: height rows of width values.
struct MaskShape {
  int64_t height = 0;
  int64_t width = 0;
};

// Writes geometry.rows.out rows of geometry.columns.out values of `mask` (shape.height x
// shape.width, packed) through `geometry` to `out`, each row `out_row_stride` values after the one
// before (0: packed). A delivered pixel that shows no stored pixel (padding) gets `fill`.
// Throws Error(kInvalidArgument) for a mask or an output smaller than the shapes say, or a
// geometry whose window leaves the mask.
void TransformMask(const SampleGeometry& geometry, std::span<const uint8_t> mask,
                   const MaskShape& shape, std::span<uint8_t> out, int64_t out_row_stride = 0,
                   uint8_t fill = 0);
void TransformMask(const SampleGeometry& geometry, std::span<const uint16_t> mask,
                   const MaskShape& shape, std::span<uint16_t> out, int64_t out_row_stride = 0,
                   uint16_t fill = 0);

}  // namespace h5feed::transform
