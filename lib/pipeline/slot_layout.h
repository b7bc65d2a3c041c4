#pragma once
// What one host slot holds for a batch, and where: every array a batch delivers lives in its
// slot, so slots() x bytes() is all the batch memory a loader uses (no side allocations per
// batch) and one H2D copy region per array serves the GPU stage.
//
//   [ images: capacity x H x W x C uint8 ][ labels: capacity int64 ][ indices: capacity int64 ]
//   [ normalized: capacity x C x H x W float32 ]    (only when normalizing on the CPU)
//
// Each region starts on a 256-byte boundary (cudaMalloc's alignment; wide vector loads and
// cache lines need 64 or less). Images stay in the slot when normalizing: they are what the
// rows are gathered into, and the GPU stage copies them rather than 4x as many float bytes.

#include <cstddef>
#include <cstdint>
#include <span>

#include "h5feed/image_shape.h"

namespace h5feed::pipeline {

// A slot's arrays, each sized for the full capacity; a batch of n rows uses the first n.
struct SlotView {
  std::span<uint8_t> images;
  std::span<int64_t> labels;
  std::span<int64_t> indices;
  std::span<float> normalized;  // empty unless the layout normalizes
};

// Immutable value; thread-safe.
class SlotLayout {
 public:
  static constexpr size_t kRegionAlignment = 256;

  // Throws Error(kInvalidArgument) for capacity < 1 or an empty image shape.
  SlotLayout(int64_t capacity, const ImageShape& shape, bool normalized);

  int64_t capacity() const { return capacity_; }
  const ImageShape& shape() const { return shape_; }
  bool normalized() const { return normalized_; }
  size_t bytes() const { return bytes_; }  // what one slot must hold

  // The arrays inside `slot` (at least bytes() bytes, 256-byte aligned).
  SlotView View(std::span<uint8_t> slot) const;

 private:
  int64_t capacity_;
  ImageShape shape_;
  bool normalized_;
  size_t labels_offset_ = 0;
  size_t indices_offset_ = 0;
  size_t normalized_offset_ = 0;
  size_t bytes_ = 0;
};

}  // namespace h5feed::pipeline
