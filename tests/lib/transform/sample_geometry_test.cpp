// A sample's geometry (sample_geometry.h): each crop kind's axes are the image's own (the box
// resize_taps.h resizes, the window augment.h reads), the nearest rule is PyTorch's legacy
// "nearest" index, and box coordinates move, clip and scale as torchvision.transforms.v2 moves
// them. Masks and boxes through it: mask_geometry_test.cpp, box_geometry_test.cpp, and against
// torchvision itself, geometry_torchvision_test.cpp.
#include "transform/sample_geometry.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "transform/augment.h"
#include "transform/resized_crop.h"

namespace h5feed::transform {
namespace {

std::vector<int32_t> Sources(const ResizeAxis& axis) {
  std::vector<int32_t> sources;
  for (int32_t i = 0; i < axis.out; ++i) sources.push_back(NearestSource(axis, i));
  return sources;
}

TEST_CASE("a random resized crop's geometry is the box the image's resize reads") {
  AugmentParams params;
  params.seed = 11;
  params.crop = CropKind::kRandomResized;
  params.image_height = 375;
  params.image_width = 500;
  params.out_height = 224;
  params.out_width = 160;
  params.random_flip = true;
  params.resized_crop.log_ratio_min = std::log(params.resized_crop.ratio_min);
  params.resized_crop.log_ratio_max = std::log(params.resized_crop.ratio_max);
  int flipped = 0;
  for (int64_t row = 0; row < 200; ++row) {
    const SampleTransform t = DrawTransform(params, 2, row, 1);
    const SampleGeometry geometry = GeometryOf(params, t);
    const CropBox box =
        DrawResizedCrop(params.resized_crop, params.image_height, params.image_width,
                        StreamKey(params.seed, 2, RandomStream::kResizedCrop, row, 1, params.view));
    const SampleGeometry expected = ResizedCropGeometry(box, 224, 160, t.flip);
    CHECK(geometry.rows.src_begin == expected.rows.src_begin);
    CHECK(geometry.rows.src_size == expected.rows.src_size);
    CHECK(geometry.rows.resized == 224);
    CHECK(geometry.rows.offset == 0);
    CHECK(geometry.rows.out == 224);
    CHECK(geometry.columns.src_begin == expected.columns.src_begin);
    CHECK(geometry.columns.src_size == expected.columns.src_size);
    CHECK(geometry.columns.resized == 160);
    CHECK(geometry.columns.out == 160);
    CHECK(geometry.flip == t.flip);
    flipped += geometry.flip;
  }
  CHECK(flipped > 60);  // the flip is the image's draw, so some are flipped and some not
  CHECK(flipped < 140);
}

TEST_CASE("each view of a sample has its own box, the one that view's image gets") {
  AugmentParams params;
  params.seed = 3;
  params.crop = CropKind::kRandomResized;
  params.image_height = 480;
  params.image_width = 640;
  params.out_height = 96;
  params.out_width = 96;
  params.resized_crop.log_ratio_min = std::log(params.resized_crop.ratio_min);
  params.resized_crop.log_ratio_max = std::log(params.resized_crop.ratio_max);
  std::vector<int32_t> lefts;
  for (int32_t view = 0; view < 4; ++view) {
    params.view = view;
    const SampleGeometry geometry = GeometryOf(params, DrawTransform(params, 0, 17, 0));
    const CropBox box = DrawResizedCrop(params.resized_crop, 480, 640,
                                        StreamKey(3, 0, RandomStream::kResizedCrop, 17, 0, view));
    CHECK(geometry.columns.src_begin == box.left);
    CHECK(geometry.columns.src_size == box.width);
    CHECK(geometry.rows.src_begin == box.top);
    CHECK(geometry.rows.src_size == box.height);
    lefts.push_back(box.left);
  }
  CHECK_FALSE((lefts[0] == lefts[1] && lefts[1] == lefts[2] && lefts[2] == lefts[3]));
}

TEST_CASE("a resize with a center crop reads the whole image and delivers from the crop's origin") {
  AugmentParams params;
  params.crop = CropKind::kResize;
  params.image_height = 300;
  params.image_width = 400;
  params.resized_height = 256;
  params.resized_width = 341;
  params.crop_top = 16;
  params.crop_left = 58;
  params.out_height = 224;
  params.out_width = 224;
  const SampleGeometry geometry = GeometryOf(params, DrawTransform(params, 0, 0, 0));
  CHECK(geometry.columns.src_begin == 0);
  CHECK(geometry.columns.src_size == 400);
  CHECK(geometry.columns.resized == 341);
  CHECK(geometry.columns.offset == 58);
  CHECK(geometry.columns.out == 224);
  CHECK(geometry.rows.offset == 16);
  CHECK_FALSE(geometry.flip);
  // Delivered column 0 is resized column 58: stored floor(58 x 400/341) = 68.
  CHECK(NearestSource(geometry.columns, 0) == 68);
}

TEST_CASE("a window with a random crop shows the pixels augment.h reads, padding outside it") {
  AugmentParams params;
  params.seed = 5;
  params.image_height = 40;
  params.image_width = 36;
  params.out_height = 32;
  params.out_width = 32;
  params.crop_top = 4;
  params.crop_left = 2;
  params.padding = 4;
  params.random_flip = true;
  for (int64_t row = 0; row < 50; ++row) {
    const SampleTransform t = DrawTransform(params, 0, row, 0);
    const SampleGeometry geometry = GeometryOf(params, t);
    for (int32_t y = 0; y < 32; ++y) {
      // augment.h: delivered (y, x) reads window pixel (y + shift_y, mirror(x) + shift_x).
      const int32_t window_y = y + t.shift_y;
      const int32_t expected = window_y < 0 || window_y >= 32 ? -1 : 4 + window_y;
      CHECK(NearestSource(geometry.rows, y) == expected);
    }
    for (int32_t x = 0; x < 32; ++x) {
      const int32_t window_x = SourceColumn(params, t, x);
      const int32_t expected = window_x < 0 || window_x >= 32 ? -1 : 2 + window_x;
      const int32_t unflipped = geometry.flip ? 31 - x : x;
      CHECK(NearestSource(geometry.columns, unflipped) == expected);
    }
  }
}

TEST_CASE("the nearest source of a resized pixel is floor(r x in/out) in float, clamped") {
  // Shrinking 3 -> 2 (scale 1.5): 0, floor(1.5) = 1.
  CHECK(Sources({0, 3, 2, 0, 2}) == std::vector<int32_t>{0, 1});
  // Enlarging 2 -> 3 (scale 2/3): 0, 0, 1; 2 -> 4 repeats each pixel twice.
  CHECK(Sources({0, 2, 3, 0, 3}) == std::vector<int32_t>{0, 0, 1});
  CHECK(Sources({5, 2, 4, 0, 4}) == std::vector<int32_t>{5, 5, 6, 6});
  // 1 pixel resized to 3: always that pixel.
  CHECK(Sources({7, 1, 3, 0, 3}) == std::vector<int32_t>{7, 7, 7});
  // In float, as PyTorch: 14 -> 46 takes resized pixel 23 to floor(23 x float(14/46)) = 6,
  // where exact arithmetic (23 x 14 / 46 = 7) would take 7; so does 26 -> 22 at 11 (12, not 13).
  CHECK(NearestSource({0, 14, 46, 0, 46}, 23) == 6);
  CHECK(NearestSource({0, 26, 22, 0, 22}, 11) == 12);
  // Padding before and after the placed window.
  CHECK(Sources({0, 4, 2, -1, 4}) == std::vector<int32_t>{-1, 0, 2, -1});
}

TEST_CASE("a box coordinate is clipped to the window, scaled, moved and clipped to the output") {
  const ResizeAxis axis{10, 40, 80, 0, 80};  // the window 10..50 doubled
  CHECK(MapCoordinate(axis, 10.0f) == 0.0f);
  CHECK(MapCoordinate(axis, 30.5f) == 41.0f);
  CHECK(MapCoordinate(axis, 50.0f) == 80.0f);
  CHECK(MapCoordinate(axis, -3.0f) == 0.0f);      // left of the window
  CHECK(MapCoordinate(axis, 70.0f) == 80.0f);     // right of it
  const ResizeAxis center{0, 400, 200, 30, 100};  // halved, then the crop 30..130
  CHECK(MapCoordinate(center, 100.0f) == 20.0f);
  CHECK(MapCoordinate(center, 20.0f) == 0.0f);
  CHECK(MapCoordinate(center, 399.0f) == 100.0f);
  const ResizeAxis padded{0, 50, 32, -16, 64};  // a conversion's pad: 50 -> 32 at 16 of 64
  CHECK(MapCoordinate(padded, 0.0f) == 16.0f);
  CHECK(MapCoordinate(padded, 50.0f) == 48.0f);
  CHECK(MapCoordinate(padded, 25.0f) == 32.0f);
  CHECK(std::isnan(MapCoordinate(axis, std::nanf(""))));
}

TEST_CASE("a conversion's placement maps the source onto its part of the stored image") {
  // `pad`: a 100 x 50 source fitted into 64 x 64 is 64 x 32, centered at column 16.
  const SampleGeometry pad = PlacedGeometry({0, 100, 0, 64, 64}, {0, 50, 16, 32, 64});
  CHECK(NearestSource(pad.columns, 15) == -1);
  CHECK(NearestSource(pad.columns, 16) == 0);
  CHECK(NearestSource(pad.columns, 47) == 48);  // floor(31 x 50/32)
  CHECK(NearestSource(pad.columns, 48) == -1);
  CHECK(NearestSource(pad.rows, 63) == 98);  // floor(63 x 100/64)
  CHECK(MapCoordinate(pad.columns, 50.0f) == 48.0f);
  // `crop`: the centered 50 x 50 of a 100 x 50 source onto 32 x 32.
  const SampleGeometry crop = PlacedGeometry({25, 50, 0, 32, 32}, {0, 50, 0, 32, 32});
  CHECK(NearestSource(crop.rows, 0) == 25);
  CHECK(NearestSource(crop.rows, 31) == 73);  // 25 + floor(31 x 50/32)
  CHECK(MapCoordinate(crop.rows, 10.0f) == 0.0f);
  CHECK(MapCoordinate(crop.rows, 75.0f) == 32.0f);
  CHECK_FALSE(crop.flip);
}

}  // namespace
}  // namespace h5feed::transform
