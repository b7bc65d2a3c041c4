// Boxes through their sample's geometry (box_geometry.h), on boxes whose delivered coordinates
// can be written down: shifted by the crop's corner and scaled, clipped to the output, mirrored
// by the flip, dropped under 1 pixel of width or height (or with a NaN), classes kept with
// their boxes. Against torchvision.transforms.v2's kernels: geometry_torchvision_test.cpp.
#include "transform/box_geometry.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "support/caught_error.h"
#include "transform/resized_crop.h"

namespace h5feed::transform {
namespace {

struct Delivered {
  std::vector<float> boxes;
  std::vector<int64_t> classes;
};

Delivered Through(const SampleGeometry& geometry, const std::vector<float>& boxes,
                  const std::vector<int64_t>& classes = {}) {
  Delivered out{std::vector<float>(boxes.size(), -1.0f), {}};
  std::vector<int64_t> kept_index(boxes.size() / 4, -1);
  const int64_t kept = TransformBoxes(geometry, boxes, out.boxes, kept_index);
  out.boxes.resize(static_cast<size_t>(4 * kept));
  // Each kept box's class, carried by its stored index as the loader carries labels.
  for (int64_t k = 0; !classes.empty() && k < kept; ++k) {
    out.classes.push_back(classes[static_cast<size_t>(kept_index[static_cast<size_t>(k)])]);
  }
  return out;
}

// The crop at (top 10, left 20) of 100 x 200, resized to 50 x 100: coordinates halve.
const SampleGeometry kHalf = ResizedCropGeometry(CropBox{10, 20, 100, 200}, 50, 100, false);

TEST_CASE("a box is shifted by the crop's corner and scaled to the output size") {
  CHECK(Through(kHalf, {40, 30, 120, 90}).boxes == std::vector<float>{10, 10, 50, 40});
}

TEST_CASE("a box is clipped to the output, and one left outside it is dropped") {
  // Over the crop's right and bottom edges; over its top-left corner; wholly left of it.
  const Delivered out = Through(kHalf, {180, 70, 260, 150, 0, 0, 30, 40, 0, 20, 19, 60});
  CHECK(out.boxes == std::vector<float>{80, 30, 100, 50, 0, 0, 5, 15});
}

TEST_CASE("the flip mirrors x and swaps the sides, keeping y") {
  const SampleGeometry flipped = ResizedCropGeometry(CropBox{10, 20, 100, 200}, 50, 100, true);
  CHECK(Through(flipped, {40, 30, 120, 90}).boxes == std::vector<float>{50, 10, 90, 40});
  // x' = W - x: a box at the left edge ends at the right edge.
  CHECK(Through(flipped, {20, 10, 30, 12}).boxes == std::vector<float>{95, 0, 100, 1});
}

TEST_CASE("a box under 1 pixel wide or tall once delivered is dropped, exactly 1 is kept") {
  // In delivered pixels: 2 x 1, kept; 0.99 wide, 0.5 tall and 0 wide, dropped; 1 x 1, kept.
  const Delivered out = Through(
      kHalf, {40, 30, 44, 32, 40, 30, 41.98f, 34, 40, 30, 60, 31, 50, 30, 50, 60, 60, 40, 62, 42},
      {7, 8, 9, 10, 11});
  CHECK(out.boxes == std::vector<float>{10, 10, 12, 11, 20, 15, 21, 16});
  CHECK(out.classes == std::vector<int64_t>{7, 11});
}

TEST_CASE("a box with a NaN coordinate is dropped") {
  const Delivered out = Through(kHalf, {std::nanf(""), 30, 120, 90, 40, 30, 120, 90}, {1, 2});
  CHECK(out.boxes == std::vector<float>{10, 10, 50, 40});
  CHECK(out.classes == std::vector<int64_t>{2});
}

TEST_CASE("a resize then center crop moves boxes by the crop's origin in resized pixels") {
  // 300 x 400 resized to 150 x 200, of which rows 25..125, columns 50..150 are delivered.
  SampleGeometry geometry;
  geometry.rows = {0, 300, 150, 25, 100};
  geometry.columns = {0, 400, 200, 50, 100};
  CHECK(Through(geometry, {100, 50, 300, 250}).boxes == std::vector<float>{0, 0, 100, 100});
  CHECK(Through(geometry, {120, 60, 140, 80}).boxes == std::vector<float>{10, 5, 20, 15});
}

TEST_CASE("a conversion's padding moves boxes onto the placed image") {
  // `pad`: a 100 x 50 source into 64 x 64 is 64 x 32 at column 16.
  const SampleGeometry pad = PlacedGeometry({0, 100, 0, 64, 64}, {0, 50, 16, 32, 64});
  CHECK(Through(pad, {0, 0, 50, 100}).boxes == std::vector<float>{16, 0, 48, 64});
  CHECK(Through(pad, {25, 50, 50, 75}).boxes == std::vector<float>{32, 32, 48, 48});
}

TEST_CASE("no boxes in, none out; sizes that are not 4 per box, or too little room, are refused") {
  CHECK(Through(kHalf, {}).boxes.empty());
  std::vector<float> out(8);
  const std::vector<float> three = {1, 2, 3};
  CHECK(testing::CodeOf([&] { TransformBoxes(kHalf, three, out); }) == ErrorCode::kInvalidArgument);
  const std::vector<float> two_boxes(8, 1.0f);
  CHECK(testing::CodeOf([&] { TransformBoxes(kHalf, two_boxes, std::span(out).first(4)); }) ==
        ErrorCode::kInvalidArgument);
  std::vector<int64_t> index_room(1);
  std::string message;
  CHECK(testing::CodeOf([&] { TransformBoxes(kHalf, two_boxes, out, index_room); }, &message) ==
        ErrorCode::kInvalidArgument);
  CHECK(message.find("room for 1 kept indices for 2 boxes") != std::string::npos);
}

}  // namespace
}  // namespace h5feed::transform
