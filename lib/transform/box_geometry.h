#pragma once
// Bounding boxes through their sample's geometry (sample_geometry.h), on the CPU: the boxes of
// one sample, xyxy float32 in the stored image's pixel coordinates (0 is the left edge of pixel
// 0, x2 the right edge of the last pixel covered), moved as the image's pixels are. Per box:
//   1. each coordinate mapped by its axis (MapCoordinate): shifted by the window's corner,
//      clipped to the window, scaled to the resized window, shifted by the offset (a center
//      crop's origin, a random crop's shift, a conversion's padding) and clipped to the
//      delivered image, [0, Wo] x [0, Ho];
//   2. with the flip, x mirrored: (x1, x2) becomes (Wo - x2, Wo - x1);
//   3. dropped when less than 1 pixel wide or tall (or not a number), as torchvision's
//      SanitizeBoundingBoxes(min_size=1) drops it.
// Steps 1-3 are torchvision.transforms.v2's resized_crop (or resize then center_crop, or pad
// then crop), horizontal_flip, ClampBoundingBoxes and SanitizeBoundingBoxes(min_size=1) on
// tv_tensors.BoundingBoxes, operation for operation in float32, as torchvision's detection
// recipe orders them (tests/lib/transform/geometry_torchvision_test.cpp compares them). The
// clip after scaling is the clamp: v2's resize multiplies by a float32 ratio that can take an
// edge on the crop's border just past the output (224.00002), which SanitizeBoundingBoxes
// alone drops as outside the image.
//
// Thread-safe: a pure function of its arguments.

#include <cstddef>
#include <cstdint>
#include <span>

#include "transform/sample_geometry.h"

namespace h5feed::transform {

// Box k of `boxes` is boxes[4k .. 4k + 3] = x1, y1, x2, y2 (K = boxes.size() / 4). Writes the
// boxes kept, in their order, to `out` (room for K boxes) and returns how many; with
// `kept_index` (room for K, or empty for none), writes each kept box's index k to it, by which
// a caller carries the box's labels and values along (CopyKeptValues). Throws
// Error(kInvalidArgument) for a size that is not 4 per box, or too little room.
int64_t TransformBoxes(const SampleGeometry& geometry, std::span<const float> boxes,
                       std::span<float> out, std::span<int64_t> kept_index = {});

// The per-box values (`value_bytes` each, one per stored box) of the boxes TransformBoxes kept:
// the value of each box `kept_index` names, copied one after another to `out` (room for
// kept_index.size() values).
void CopyKeptValues(std::span<const uint8_t> values, size_t value_bytes,
                    std::span<const int64_t> kept_index, uint8_t* out);

// The smallest width and height a delivered box keeps (SanitizeBoundingBoxes' min_size).
inline constexpr float kMinBoxSide = 1.0f;

}  // namespace h5feed::transform
