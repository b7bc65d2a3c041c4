#include "memory/slot_layout.h"

#include <string>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::memory {
namespace {

size_t AlignUp(size_t value) {
  return (value + SlotLayout::kRegionAlignment - 1) / SlotLayout::kRegionAlignment *
         SlotLayout::kRegionAlignment;
}

SlotContents FloatImages(const ImageShape& shape, bool normalized) {
  SlotContents contents;
  if (normalized && shape.bytes() > 0) {
    contents.output_image_bytes = static_cast<size_t>(shape.bytes()) * sizeof(float);
  }
  return contents;
}

}  // namespace

SlotLayout::SlotLayout(int64_t capacity, const ImageShape& shape, const SlotContents& contents)
    : capacity_(capacity), shape_(shape), contents_(contents) {
  if (capacity < 1 || shape.height < 1 || shape.width < 1 || shape.channels < 1 ||
      contents.row_orders < 0) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "slot layout: batch capacity {} of {}x{}x{} images", capacity, shape.height,
                    shape.width, shape.channels);
  }
  const size_t rows = static_cast<size_t>(capacity);
  labels_offset_ = AlignUp(rows * static_cast<size_t>(shape.bytes()));
  indices_offset_ = AlignUp(labels_offset_ + rows * sizeof(int64_t));
  orders_offset_ = AlignUp(indices_offset_ + rows * sizeof(int64_t));
  output_offset_ = AlignUp(orders_offset_ + orders_bytes());
  bytes_ = output_offset_ + rows * contents.output_image_bytes;
}

SlotLayout::SlotLayout(int64_t capacity, const ImageShape& shape, bool normalized)
    : SlotLayout(capacity, shape, FloatImages(shape, normalized)) {
  float_images_ = normalized;
}

SlotView SlotLayout::View(std::span<uint8_t> slot) const {
  if (slot.size() < bytes_) {
    throw MakeError(ErrorCode::kInternal, "slot layout: slot of {} bytes, layout needs {}",
                    slot.size(), bytes_);
  }
  const size_t rows = static_cast<size_t>(capacity_);
  uint8_t* base = slot.data();
  SlotView view;
  view.images = {base, rows * static_cast<size_t>(shape_.bytes())};
  view.labels = {reinterpret_cast<int64_t*>(base + labels_offset_), rows};
  view.indices = {reinterpret_cast<int64_t*>(base + indices_offset_), rows};
  if (contents_.row_orders > 0) {
    view.orders = {reinterpret_cast<int64_t*>(base + orders_offset_),
                   rows * static_cast<size_t>(contents_.row_orders)};
  }
  if (normalized()) {
    view.output = {base + output_offset_, rows * contents_.output_image_bytes};
    if (float_images_) {
      view.normalized = {reinterpret_cast<float*>(base + output_offset_),
                         rows * static_cast<size_t>(shape_.bytes())};
    }
  }
  return view;
}

}  // namespace h5feed::memory
