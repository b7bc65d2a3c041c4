#pragma once
// Slots whose output region holds float32 images at the stored size (what normalize = true
// delivers by default, C x H x W), and that region read as floats: how the memory and pipeline
// tests lay out, fill and read normalized slots without a view's spec.

#include <cstdint>
#include <span>

#include "h5feed/image_shape.h"
#include "memory/slot_layout.h"

namespace h5feed::testing {

inline memory::SlotContents FloatImages(const ImageShape& shape) {
  memory::SlotContents contents;
  contents.output_image_bytes = static_cast<size_t>(shape.bytes()) * sizeof(float);
  return contents;
}

// A slot's output region (SlotView::output) as the floats it holds.
inline std::span<float> Floats(std::span<uint8_t> output) {
  return {reinterpret_cast<float*>(output.data()), output.size() / sizeof(float)};
}

}  // namespace h5feed::testing
