#include "pipeline/slot_layout.h"

#include <string>

#include "h5feed/error.h"

namespace h5feed::pipeline {
namespace {

size_t AlignUp(size_t value) {
  return (value + SlotLayout::kRegionAlignment - 1) / SlotLayout::kRegionAlignment *
         SlotLayout::kRegionAlignment;
}

}  // namespace

SlotLayout::SlotLayout(int64_t capacity, const ImageShape& shape, bool normalized)
    : capacity_(capacity), shape_(shape), normalized_(normalized) {
  if (capacity < 1 || shape.height < 1 || shape.width < 1 || shape.channels < 1) {
    throw Error(ErrorCode::kInvalidArgument,
                "slot layout: batch capacity " + std::to_string(capacity) + " of " +
                    std::to_string(shape.height) + "x" + std::to_string(shape.width) + "x" +
                    std::to_string(shape.channels) + " images");
  }
  const size_t rows = static_cast<size_t>(capacity);
  const size_t image_bytes = static_cast<size_t>(shape.bytes());
  labels_offset_ = AlignUp(rows * image_bytes);
  indices_offset_ = AlignUp(labels_offset_ + rows * sizeof(int64_t));
  normalized_offset_ = AlignUp(indices_offset_ + rows * sizeof(int64_t));
  bytes_ = normalized ? normalized_offset_ + rows * image_bytes * sizeof(float)
                      : normalized_offset_;
}

SlotView SlotLayout::View(std::span<uint8_t> slot) const {
  if (slot.size() < bytes_) {
    throw Error(ErrorCode::kInternal, "slot layout: slot of " + std::to_string(slot.size()) +
                                          " bytes, layout needs " + std::to_string(bytes_));
  }
  const size_t rows = static_cast<size_t>(capacity_);
  uint8_t* base = slot.data();
  SlotView view;
  view.images = {base, rows * static_cast<size_t>(shape_.bytes())};
  view.labels = {reinterpret_cast<int64_t*>(base + labels_offset_), rows};
  view.indices = {reinterpret_cast<int64_t*>(base + indices_offset_), rows};
  if (normalized_) {
    view.normalized = {reinterpret_cast<float*>(base + normalized_offset_),
                       rows * static_cast<size_t>(shape_.bytes())};
  }
  return view;
}

}  // namespace h5feed::pipeline
