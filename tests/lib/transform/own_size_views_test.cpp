#include "transform/own_size_views.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "transform/output_spec.h"
#include "transform/output_views.h"

namespace h5feed::transform {
namespace {

const ImageShape kLargest{500, 500, 3};

NormalizeParams Normalize() {
  const float half[3] = {0.5f, 0.5f, 0.5f};
  return MakeNormalizeParams(half, half, 3, 3);
}

AugmentOptions RandomResizedCrop(int64_t size, int count = 1) {
  AugmentOptions augment;
  augment.random_resized_crop.height = size;
  augment.random_resized_crop.width = size;
  augment.count = count;
  return augment;
}

// Two flipped global views of 32, three local ones of 16 that may grow to 24, a validation view
// of 64.
OutputOptions SeveralViews() {
  OutputOptions output;
  AugmentOptions global = RandomResizedCrop(32, 2);
  global.random_flip = true;
  AugmentOptions local = RandomResizedCrop(16, 3);
  local.max_output_height = 24;
  local.max_output_width = 24;
  AugmentOptions validation;
  validation.resize_shorter = 72;
  validation.center_crop_height = 64;
  validation.center_crop_width = 64;
  output.views = {global, local, validation};
  return output;
}

std::string ErrorOf(const OutputOptions& output,
                    const std::optional<ResizeExtremes>& extremes = std::nullopt) {
  try {
    MakeOwnSizeViews(Normalize(), kLargest, extremes, output, 1);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInvalidArgument);
    return e.what();
  }
  FAIL("no error");
  return "";
}

TEST_CASE("each view is a window of its room in the stacked crops, its crop made at the gather") {
  const OutputViews views =
      MakeOwnSizeViews(Normalize(), kLargest, std::nullopt, SeveralViews(), 9);
  REQUIRE(views.count() == 6);
  REQUIRE(views.gather_crops.size() == 6);
  // Shelves as wide as the widest room (64): the two global rooms side by side, two local
  // rooms (24 x 24) on the next shelf and the third below them, the validation room last.
  CHECK(StackedShape(views) == ImageShape{144, 64, 3});
  CHECK(StackedRowStride(views) == 192);
  const int tops[] = {0, 0, 32, 32, 56, 80};
  const int lefts[] = {0, 32, 0, 24, 0, 0};
  const int sizes[] = {32, 32, 16, 16, 16, 64};
  for (int v = 0; v < 6; ++v) {
    CAPTURE(v);
    const AugmentParams& window = views.views[static_cast<size_t>(v)].augment;
    const AugmentParams& crop = views.gather_crops[static_cast<size_t>(v)];
    CHECK(window.crop == CropKind::kWindow);
    CHECK(window.crop_top == tops[v]);
    CHECK(window.crop_left == lefts[v]);
    CHECK(window.padding == 0);
    CHECK(window.image_height == 144);
    CHECK(window.image_width == 64);
    CHECK(window.out_height == sizes[v]);
    CHECK(window.out_width == sizes[v]);
    CHECK(window.view == v);
    CHECK(window.random_flip == (v < 2));  // the flip is the window's, after the crop
    CHECK(crop.crop == (v < 5 ? CropKind::kRandomResized : CropKind::kResize));
    CHECK(crop.view == v);  // each view draws its own box
    CHECK(crop.out_height == sizes[v]);
    CHECK_FALSE(crop.random_flip);
    std::vector<uint8_t> sample(144 * 192);
    CHECK(PlaceOf(views, v, sample.data()) == sample.data() + tops[v] * 192 + lefts[v] * 3);
  }
  // The delivered room is the views' own (3 local views of up to 24 x 24 floats).
  CHECK(views.room_bytes[2] == 24 * 24 * 3 * 4);
  CHECK(views.spec_of_view == std::vector<int>{0, 0, 1, 1, 1, 2});
}

TEST_CASE("a later size keeps Open's places, and one larger than its room is refused") {
  const OutputOptions output = SeveralViews();
  const OutputViews opened = MakeOwnSizeViews(Normalize(), kLargest, std::nullopt, output, 9);
  const OutputViews larger = MakeOwnSizeViews(Normalize(), kLargest, std::nullopt,
                                              WithOutputSize(output, 1, 24, 20), 9, {}, &opened);
  CHECK(StackedShape(larger) == StackedShape(opened));
  for (int v = 0; v < 6; ++v) {
    CHECK(larger.views[static_cast<size_t>(v)].augment.crop_top ==
          opened.views[static_cast<size_t>(v)].augment.crop_top);
    CHECK(larger.views[static_cast<size_t>(v)].augment.crop_left ==
          opened.views[static_cast<size_t>(v)].augment.crop_left);
  }
  CHECK(larger.views[2].augment.out_height == 24);
  CHECK(larger.views[2].augment.out_width == 20);
  CHECK(larger.gather_crops[4].out_width == 20);
  CHECK(larger.views[0].augment.out_height == 32);

  // Without max_output the room is the size at Open: as many bytes in another shape do not fit.
  OutputOptions fixed;
  fixed.augment = RandomResizedCrop(32);
  const OutputViews fixed_opened = MakeOwnSizeViews(Normalize(), kLargest, std::nullopt, fixed, 9);
  CHECK(StackedShape(fixed_opened) == ImageShape{32, 32, 3});
  CHECK_THROWS_WITH_AS(MakeOwnSizeViews(Normalize(), kLargest, std::nullopt,
                                        WithOutputSize(fixed, 0, 16, 64), 9, {}, &fixed_opened),
                       doctest::Contains("output.augment.max_output"), Error);
  CHECK(MakeOwnSizeViews(Normalize(), kLargest, std::nullopt, WithOutputSize(fixed, 0, 16, 24), 9,
                         {}, &fixed_opened)
            .views[0]
            .augment.out_width == 24);
}

TEST_CASE("a view without a crop of one size, or with padding, is refused, naming the option") {
  OutputOptions flip_only;
  flip_only.augment.random_flip = true;
  CHECK(ErrorOf(flip_only).find("output.augment.random_resized_crop") != std::string::npos);

  OutputOptions resize_only = SeveralViews();
  resize_only.views[1] = AugmentOptions{};
  resize_only.views[1].resize_shorter = 64;
  CHECK(ErrorOf(resize_only).find("output.views[1].random_resized_crop") != std::string::npos);

  OutputOptions crop_too_large = SeveralViews();
  crop_too_large.views[2].center_crop_height = 80;  // more than the resized shorter side
  CHECK(ErrorOf(crop_too_large).find("output.views[2].center_crop") != std::string::npos);

  OutputOptions padded = SeveralViews();
  padded.views[2].random_crop_padding = 4;
  CHECK(ErrorOf(padded).find("output.views[2].random_crop_padding") != std::string::npos);
}

TEST_CASE("the largest center crop after Resize(S) is the least resized width and height") {
  // Every image's resized size, computed one by one, against the two extremes' at each S.
  std::mt19937 random(7);
  std::uniform_int_distribution<int64_t> side(1, 4000);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<ImageShape> shapes(1 + trial % 17);
    for (ImageShape& shape : shapes) shape = {side(random), side(random), 3};
    ResizeExtremes extremes;
    for (const ImageShape& shape : shapes) extremes.Add(shape);
    for (const int64_t shorter : {1, 6, 224, 256, 1000}) {
      int64_t least_height = INT64_MAX;
      int64_t least_width = INT64_MAX;
      for (const ImageShape& shape : shapes) {
        int64_t height = 0;
        int64_t width = 0;
        ResizedSize(shape, shorter, height, width);
        least_height = std::min(least_height, height);
        least_width = std::min(least_width, width);
      }
      int64_t height = 0;
      int64_t width = 0;
      extremes.LargestCrop(shorter, height, width);
      CAPTURE(trial);
      CAPTURE(shorter);
      CHECK(height == least_height);
      CHECK(width == least_width);
    }
  }
}

TEST_CASE("a center crop past the resized shorter side is taken where every image holds it") {
  // Resize(6) makes 6 x 8 and 9 x 15 images 6 x 8 and 6 x 10: CenterCrop((6, 8)) fits both.
  OutputOptions output;
  output.augment.resize_shorter = 6;
  output.augment.center_crop_height = 6;
  output.augment.center_crop_width = 8;
  ResizeExtremes landscape;
  landscape.Add({6, 8, 3});
  landscape.Add({9, 15, 3});
  const OutputViews views = MakeOwnSizeViews(Normalize(), {9, 15, 3}, landscape, output, 1);
  CHECK(StackedShape(views) == ImageShape{6, 8, 3});
  CHECK(views.gather_crops[0].crop == CropKind::kResize);
  const AugmentParams wide = ForImage(views.gather_crops[0], 9, 15);
  CHECK(wide.resized_width == 10);
  CHECK(wide.crop_left == 1);
  CHECK(wide.crop_top == 0);

  // An 8 x 6 image resized is 8 x 6: 6 wide, narrower than the crop.
  ResizeExtremes mixed = landscape;
  mixed.Add({8, 6, 3});
  CHECK(ErrorOf(output, mixed) ==
        "LoaderOptions.output.augment.center_crop is 6x8 but "
        "LoaderOptions.output.augment.resize_shorter = 6 makes the file's narrowest image (8 x "
        "6, height x width) 6 wide and its flattest (9 x 15) 6 tall; crop at most 6x6, which "
        "every image's resized size holds");
  // Sizes not known ahead: only S x S is sure to fit.
  CHECK(ErrorOf(output) ==
        "LoaderOptions.output.augment.center_crop is 6x8 but "
        "LoaderOptions.output.augment.resize_shorter = 6 makes an image's shorter side 6, and "
        "the images' sizes are not known ahead; crop at most 6x6");
  output.augment.center_crop_width = 6;
  CHECK(StackedShape(MakeOwnSizeViews(Normalize(), {9, 15, 3}, std::nullopt, output, 1)) ==
        ImageShape{6, 6, 3});
}

}  // namespace
}  // namespace h5feed::transform
