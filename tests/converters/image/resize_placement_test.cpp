// A conversion's placement (PlaceResize) moves a mask and boxes where ResizeInto moves the
// image's pixels, in every mode: an image of a white rectangle on black, its mask (1 inside the
// rectangle) and its box, converted together through PlacedGeometry (transform/
// sample_geometry.h), agree on where the rectangle is once stored.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "image/resize.h"
#include "transform/box_geometry.h"
#include "transform/mask_geometry.h"
#include "transform/sample_geometry.h"

namespace h5feed::converters::image {
namespace {

transform::SampleGeometry GeometryOf(const ResizePlacement& p, Size target) {
  return transform::PlacedGeometry(
      {p.from.top, p.from.height, p.to.top, p.to.height, target.height},
      {p.from.left, p.from.width, p.to.left, p.to.width, target.width});
}

struct Example {
  Size source;
  PixelRect rectangle;  // white in the image, 1 in the mask
};

// How a stored pixel, whose centre is (y + 0.5, x + 0.5), lies relative to a box: at least a
// pixel inside it, at least a pixel outside it, or near its edge.
enum class Where { kInside, kOutside, kEdge };
Where Locate(const float* box, int y, int x) {
  const float cx = static_cast<float>(x) + 0.5f;
  const float cy = static_cast<float>(y) + 0.5f;
  if (cx >= box[0] + 1 && cx <= box[2] - 1 && cy >= box[1] + 1 && cy <= box[3] - 1) {
    return Where::kInside;
  }
  if (cx <= box[0] - 1 || cx >= box[2] + 1 || cy <= box[1] - 1 || cy >= box[3] + 1) {
    return Where::kOutside;
  }
  return Where::kEdge;
}

TEST_CASE("a mask and a box converted with an image land where its pixels do, in every mode") {
  const std::vector<Example> examples = {{{300, 400}, {60, 100, 80, 120}},
                                         {{400, 300}, {150, 20, 200, 90}},
                                         {{97, 203}, {10, 80, 60, 40}}};
  const Size target{64, 64};
  for (const Example& example : examples) {
    const Size source = example.source;
    const PixelRect& r = example.rectangle;
    std::vector<uint8_t> pixels(static_cast<size_t>(source.height) * source.width * 3, 0);
    std::vector<uint8_t> mask(static_cast<size_t>(source.height) * source.width, 0);
    for (int y = r.top; y < r.top + r.height; ++y) {
      for (int x = r.left; x < r.left + r.width; ++x) {
        const size_t at = static_cast<size_t>(y) * source.width + x;
        mask[at] = 1;
        for (size_t c = 0; c < 3; ++c) pixels[3 * at + c] = 255;
      }
    }
    const std::vector<float> box = {static_cast<float>(r.left), static_cast<float>(r.top),
                                    static_cast<float>(r.left + r.width),
                                    static_cast<float>(r.top + r.height)};
    for (ResizeMode mode : {ResizeMode::kCrop, ResizeMode::kStretch, ResizeMode::kPad}) {
      CAPTURE(source.height);
      CAPTURE(source.width);
      CAPTURE(static_cast<int>(mode));
      std::vector<uint8_t> image(static_cast<size_t>(target.height) * target.width * 3);
      ResizeInto(pixels, source, target, mode, image);
      const transform::SampleGeometry geometry =
          GeometryOf(PlaceResize(source, target, mode), target);
      std::vector<uint8_t> stored_mask(static_cast<size_t>(target.height) * target.width);
      transform::TransformMask(geometry, mask, {source.height, source.width}, stored_mask);
      std::vector<float> stored_box(4);
      REQUIRE(transform::TransformBoxes(geometry, box, stored_box) == 1);
      int inside = 0;
      for (int y = 0; y < target.height; ++y) {
        for (int x = 0; x < target.width; ++x) {
          const size_t at = static_cast<size_t>(y) * target.width + x;
          const Where where = Locate(stored_box.data(), y, x);
          if (where == Where::kInside) {
            ++inside;
            CHECK(image[3 * at] == 255);
            CHECK(stored_mask[at] == 1);
          } else if (where == Where::kOutside) {
            CHECK(image[3 * at] == 0);
            CHECK(stored_mask[at] == 0);
          }
        }
      }
      CHECK(inside >= 16);  // the rectangle is seen, not clipped away
    }
  }
}

TEST_CASE("the placement is the source's part and the target's part ResizeInto uses") {
  // A 300 x 400 photo to 224 x 224: crop keeps the centered 300 x 300; pad fits 168 x 224 at
  // row 28; stretch maps whole onto whole.
  const ResizePlacement crop = PlaceResize({300, 400}, {224, 224}, ResizeMode::kCrop);
  CHECK(crop.from.left == 50);
  CHECK(crop.from.width == 300);
  CHECK(crop.from.height == 300);
  CHECK(crop.to.height == 224);
  const ResizePlacement pad = PlaceResize({300, 400}, {224, 224}, ResizeMode::kPad);
  CHECK(pad.from.width == 400);
  CHECK(pad.to.top == 28);
  CHECK(pad.to.height == 168);
  CHECK(pad.to.width == 224);
  const ResizePlacement stretch = PlaceResize({300, 400}, {224, 224}, ResizeMode::kStretch);
  CHECK(stretch.from.height == 300);
  CHECK(stretch.to.width == 224);
}

}  // namespace
}  // namespace h5feed::converters::image
