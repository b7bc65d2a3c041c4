#pragma once
// What one host slot holds for a batch, and where: every array a batch delivers lives in its
// slot, so slots() x bytes() is all the batch memory a loader uses (no side allocations per
// batch) and one H2D copy per array group serves the GPU stage.
//
//   [ images: capacity x H x W x C uint8 ][ labels: capacity int64 ][ indices: capacity int64 ]
//   [ orders: row_orders x capacity int64 ]   (GPU stage: the echo copies' row orders)
//   [ field k: capacity x field_row_bytes[k] ] (each array field a batch delivers, in order;
//                                              then, with the GPU stage, its masks)
//   [ output: capacity x output_image_bytes ] (only when normalizing on the CPU)
//
// Each region starts on a 256-byte boundary (cudaMalloc's alignment; wide vector loads and
// cache lines need 64 or less). Labels, indices and orders follow each other, so the GPU stage
// copies them with one cudaMemcpyAsync. Images stay in the slot when normalizing: they are what
// the rows are gathered into, and the GPU stage copies them rather than 2-4x as many bytes.
// The field regions come right after that group, one after another: the GPU stage copies them,
// first to last, with one more cudaMemcpyAsync (cuda/device_stage.h), and the host path reads
// them in place. With the GPU stage the masks it crops have regions there too, after the array
// fields (loader/batch_fields.h).

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "h5feed/image_shape.h"

namespace h5feed::memory {

// A slot's arrays, each sized for the full capacity; a batch of n rows uses the first n.
struct SlotView {
  std::span<uint8_t> images;
  std::span<int64_t> labels;
  std::span<int64_t> indices;
  std::span<int64_t> orders;  // row_orders x capacity; empty unless the layout has them
  // Array field k's rows, capacity x field_row_bytes(k) (row i at i x field_row_bytes(k)).
  std::vector<std::span<uint8_t>> fields;
  std::span<uint8_t> output;  // normalized images, any type and layout; empty unless normalizing
};

// What a slot holds beyond images, labels and indices.
struct SlotContents {
  size_t output_image_bytes = 0;  // normalized bytes per image (0: not normalizing on the CPU)
  int64_t row_orders = 0;         // row orders of `capacity` entries each
  // The bytes of one row of each field region, in the slot's order (each at least 1): the
  // array fields a batch delivers, in the order it delivers them, then the GPU stage's masks.
  std::vector<size_t> field_row_bytes;
};

// Immutable value; thread-safe.
class SlotLayout {
 public:
  static constexpr size_t kRegionAlignment = 256;

  // Throws Error(kInvalidArgument) for capacity < 1, an empty image shape, a field row of 0
  // bytes, or a slot larger than size_t counts.
  SlotLayout(int64_t capacity, const ImageShape& shape, const SlotContents& contents);

  // The rule the constructor lays slots out by, for who sizes memory before there is a layout
  // or without one: bytes() of a slot of `capacity` rows of `image_bytes` images holding
  // `contents` (SIZE_MAX when that overflows size_t: no machine holds such a slot), and the
  // bytes of its labels, indices and `row_orders` orders group (labels_group_bytes()), which
  // the GPU stage keeps a device copy of.
  static size_t Bytes(int64_t capacity, size_t image_bytes, const SlotContents& contents) noexcept;
  static size_t LabelsGroupBytes(int64_t capacity, int64_t row_orders) noexcept;

  int64_t capacity() const { return capacity_; }
  const ImageShape& shape() const { return shape_; }
  bool normalized() const { return contents_.output_image_bytes > 0; }
  size_t output_image_bytes() const { return contents_.output_image_bytes; }
  int64_t row_orders() const { return contents_.row_orders; }
  int fields() const { return static_cast<int>(contents_.field_row_bytes.size()); }
  size_t field_row_bytes(int k) const { return contents_.field_row_bytes[static_cast<size_t>(k)]; }
  size_t bytes() const { return bytes_; }  // what one slot must hold
  // Byte offsets of labels (the start of the labels/indices/orders group) and of its end.
  size_t labels_offset() const { return labels_offset_; }
  size_t labels_group_end() const { return orders_offset_ + orders_bytes(); }
  size_t labels_group_bytes() const { return labels_group_end() - labels_offset_; }

  // The arrays inside `slot` (at least bytes() bytes, 256-byte aligned).
  SlotView View(std::span<uint8_t> slot) const;

 private:
  size_t orders_bytes() const {
    return static_cast<size_t>(capacity_ * contents_.row_orders) * sizeof(int64_t);
  }

  int64_t capacity_;
  ImageShape shape_;
  SlotContents contents_;
  size_t labels_offset_ = 0;
  size_t indices_offset_ = 0;
  size_t orders_offset_ = 0;
  std::vector<size_t> field_offsets_;
  size_t output_offset_ = 0;
  size_t bytes_ = 0;
};

}  // namespace h5feed::memory
