#include "transform/own_size_views.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "h5feed/error.h"
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

std::string ErrorOf(const OutputOptions& output) {
  try {
    MakeOwnSizeViews(Normalize(), kLargest, output, 1);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInvalidArgument);
    return e.what();
  }
  FAIL("no error");
  return "";
}

TEST_CASE("each view is a window of its room in the stacked crops, its crop made at the gather") {
  const OutputViews views = MakeOwnSizeViews(Normalize(), kLargest, SeveralViews(), 9);
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
  const OutputViews opened = MakeOwnSizeViews(Normalize(), kLargest, output, 9);
  const OutputViews larger =
      MakeOwnSizeViews(Normalize(), kLargest, WithOutputSize(output, 1, 24, 20), 9, {}, &opened);
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
  const OutputViews fixed_opened = MakeOwnSizeViews(Normalize(), kLargest, fixed, 9);
  CHECK(StackedShape(fixed_opened) == ImageShape{32, 32, 3});
  CHECK_THROWS_WITH_AS(MakeOwnSizeViews(Normalize(), kLargest, WithOutputSize(fixed, 0, 16, 64), 9,
                                        {}, &fixed_opened),
                       doctest::Contains("output.augment.max_output"), Error);
  CHECK(MakeOwnSizeViews(Normalize(), kLargest, WithOutputSize(fixed, 0, 16, 24), 9, {},
                         &fixed_opened)
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

}  // namespace
}  // namespace h5feed::transform
