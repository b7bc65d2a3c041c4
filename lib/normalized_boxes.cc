#include "normalized_boxes.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace h5feed {

std::optional<UnitBoxes> FindUnitBoxes(std::span<const uint8_t> boxes) {
  constexpr size_t kBoxBytes = 4 * sizeof(float);
  if (boxes.size() % kBoxBytes != 0) return std::nullopt;
  std::optional<UnitBoxes> found;
  for (size_t k = 0; k < boxes.size() / kBoxBytes; ++k) {
    float box[4];
    std::memcpy(box, boxes.data() + k * kBoxBytes, kBoxBytes);
    // A nan is no coordinate within 0 to 1: the comparisons are false.
    if (!std::all_of(box, box + 4, [](float v) { return v >= 0.0f && v <= 1.0f; })) {
      return std::nullopt;
    }
    if (!found && box[2] > box[0] && box[3] > box[1]) {
      found = UnitBoxes{static_cast<int64_t>(k), {box[0], box[1], box[2], box[3]}};
    }
  }
  return found;
}

std::string NormalizedBoxesProblem(const UnitBoxes& unit, int64_t height, int64_t width) {
  if (std::min(height, width) < kNormalizedBoxesMinSide) return "";
  return fmt::format(
      "has every box within 0 to 1 (box {} is [{}, {}, {}, {}]), but its image is {} x {} "
      "(height x width): boxes normalized to the image's size would be stored as boxes under a "
      "pixel, which the loader drops; give x1, y1, x2, y2 in the image's pixels (normalized "
      "boxes times [width, height, width, height])",
      unit.index, unit.box[0], unit.box[1], unit.box[2], unit.box[3], height, width);
}

std::string NormalizedBoxesProblem(std::span<const uint8_t> boxes, int64_t height, int64_t width) {
  if (std::min(height, width) < kNormalizedBoxesMinSide) return "";
  const std::optional<UnitBoxes> unit = FindUnitBoxes(boxes);
  return unit ? NormalizedBoxesProblem(*unit, height, width) : "";
}

}  // namespace h5feed
