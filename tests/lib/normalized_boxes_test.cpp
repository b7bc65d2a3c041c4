// Boxes normalized to 0-1 where pixels are stored (lib/normalized_boxes.h): which rows are
// taken for them, on which images, and what the message says. The Writer's refusal of them is
// tests/lib/format/field_writer_test.cpp's; h5feed.write's, test_write_masks_boxes.py's.

#include "normalized_boxes.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace h5feed {
namespace {

std::span<const uint8_t> Bytes(const std::vector<float>& boxes) {
  return {reinterpret_cast<const uint8_t*>(boxes.data()), boxes.size() * sizeof(float)};
}

TEST_CASE("boxes all within 0 to 1, one of some area, are unit boxes: the first of area named") {
  const std::vector<float> boxes = {0, 0, 0, 0, 0.1f, 0.25f, 0.5f, 0.75f, 0, 0, 1, 1};
  const std::optional<UnitBoxes> unit = FindUnitBoxes(Bytes(boxes));
  REQUIRE(unit.has_value());
  CHECK(unit->index == 1);
  CHECK(std::vector<float>(unit->box, unit->box + 4) ==
        std::vector<float>{0.1f, 0.25f, 0.5f, 0.75f});
  CHECK(NormalizedBoxesProblem(Bytes(boxes), 32, 40) ==
        "has every box within 0 to 1 (box 1 is [0.1, 0.25, 0.5, 0.75]), but its image is 32 x 40 "
        "(height x width): boxes normalized to the image's size would be stored as boxes under a "
        "pixel, which the loader drops; give x1, y1, x2, y2 in the image's pixels (normalized "
        "boxes times [width, height, width, height])");
}

TEST_CASE("no boxes, boxes of no area, a coordinate past 0-1 or not a number are not unit boxes") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK_FALSE(FindUnitBoxes({}).has_value());
  CHECK_FALSE(FindUnitBoxes(Bytes({0, 0, 0, 0, 0.5f, 0.5f, 0.5f, 1})).has_value());
  CHECK_FALSE(FindUnitBoxes(Bytes({0.1f, 0.1f, 0.5f, 0.5f, 0.5f, 0, 1, 1.5f})).has_value());
  CHECK_FALSE(FindUnitBoxes(Bytes({-0.5f, 0.1f, 0.5f, 0.5f})).has_value());
  CHECK_FALSE(FindUnitBoxes(Bytes({0.1f, 0.1f, 0.5f, nan})).has_value());
  // Not whole boxes: FieldRowProblem's to say.
  CHECK_FALSE(FindUnitBoxes(Bytes({0.1f, 0.1f, 0.5f})).has_value());
  CHECK(NormalizedBoxesProblem(Bytes({0, 0, 2, 2}), 32, 40).empty());
}

TEST_CASE("on an image under 4 pixels on a side, unit boxes may be pixels: kept") {
  const std::vector<float> boxes = {0.5f, 0, 1, 1};
  CHECK(NormalizedBoxesProblem(Bytes(boxes), 3, 40).empty());
  CHECK(NormalizedBoxesProblem(Bytes(boxes), 40, 3).empty());
  CHECK_FALSE(NormalizedBoxesProblem(Bytes(boxes), 4, 4).empty());
}

}  // namespace
}  // namespace h5feed
