// The random resized crop's boxes (resized_crop.h): torchvision's RandomResizedCrop.get_params
// in distribution (two-sample Kolmogorov-Smirnov over 100,000 draws, the fallback share
// included), its fallback exactly, and boxes that are a pure function of their key.
#include "transform/resized_crop.h"
#include "transform/output_spec.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "support/temp_folder.h"
#include "transform/augment.h"
#include "transform/random_streams.h"

namespace h5feed::transform {
namespace {

ResizedCropParams Params(double scale_min, double scale_max, double ratio_min, double ratio_max) {
  return ResizedCropParams{scale_min, scale_max,           ratio_min,
                           ratio_max, std::log(ratio_min), std::log(ratio_max)};
}

// Draws `draws` boxes for keys Mix(0), Mix(1), ... and has torchvision_reference.py compare
// their area fractions, log aspect ratios and fallback share with `reference_draws` of
// torchvision's.
void CompareWithTorchvision(const ResizedCropParams& params, int height, int width, int draws,
                            int reference_draws) {
  testing::TempFolder folder;
  std::vector<double> samples;
  for (int i = 0; i < draws; ++i) {
    const CropBox box = DrawResizedCrop(params, height, width, Mix(static_cast<uint64_t>(i)));
    REQUIRE(box.height >= 1);
    REQUIRE(box.width >= 1);
    REQUIRE(box.top + box.height <= height);
    REQUIRE(box.left + box.width <= width);
    for (int32_t value : {box.top, box.left, box.height, box.width}) {
      samples.push_back(static_cast<double>(value));
    }
  }
  {
    std::ofstream out(folder / "ours.f64", std::ios::binary);
    out.write(reinterpret_cast<const char*>(samples.data()),
              static_cast<std::streamsize>(samples.size() * sizeof(double)));
  }
  const std::string command =
      std::string(H5FEED_PYTHON) + " " + H5FEED_TORCHVISION_REFERENCE + " get-params " +
      std::to_string(reference_draws) + " " + std::to_string(height) + " " + std::to_string(width) +
      " " + std::to_string(params.scale_min) + " " + std::to_string(params.scale_max) + " " +
      std::to_string(params.ratio_min) + " " + std::to_string(params.ratio_max) + " " +
      (folder / "ours.f64");
  INFO(command);
  CHECK(std::system(command.c_str()) == 0);
}

TEST_CASE("ImageNet's crops are distributed as torchvision's get_params over 100,000 draws") {
  CompareWithTorchvision(Params(0.08, 1.0, 3.0 / 4.0, 4.0 / 3.0), 256, 320, 100'000, 100'000);
}

TEST_CASE(
    "an own-size file's portrait and landscape images get torchvision's boxes of their own size") {
  // The box of an image of an own-size file is drawn from its own height and width
  // (ForImage), not from the largest image's.
  AugmentParams base;
  base.crop = CropKind::kRandomResized;
  base.out_height = 224;
  base.out_width = 224;
  base.image_height = 512;
  base.image_width = 512;
  base.resized_crop = Params(0.08, 1.0, 3.0 / 4.0, 4.0 / 3.0);
  for (const auto& [height, width] : {std::pair{375, 500}, std::pair{500, 333}}) {
    const AugmentParams image = ForImage(base, height, width);
    CHECK(image.image_height == height);
    CHECK(image.image_width == width);
    CompareWithTorchvision(image.resized_crop, image.image_height, image.image_width, 20'000,
                           20'000);
  }
}

TEST_CASE("with settings that often fail, the fallback share and crops match torchvision's") {
  // About 17% of torchvision's draws end in the fallback here, after 5 attempts on average;
  // torchvision's side is 20,000 draws, each ten times as slow.
  CompareWithTorchvision(Params(0.8, 1.0, 0.5, 2.0), 200, 320, 100'000, 20'000);
}

TEST_CASE("the fallback is the central crop with the aspect ratio clamped to the range") {
  // Ratio 3..4 on a square image: w = sqrt(A s r) > 256 for every scale near 1, so all ten
  // attempts fail; torchvision then takes w = 256, h = round(256 / 3) = 85, centred.
  const CropBox wide = DrawResizedCrop(Params(0.9, 1.0, 3.0, 4.0), 256, 256, 12345);
  CHECK(wide.fallback);
  CHECK(std::make_tuple(wide.top, wide.left, wide.height, wide.width) ==
        std::make_tuple(85, 0, 85, 256));
  // Ratio 0.1..0.2 on a landscape image: h = H, w = round(200 x 0.2) = 40.
  const CropBox tall = DrawResizedCrop(Params(0.95, 1.0, 0.1, 0.2), 200, 300, 7);
  CHECK(tall.fallback);
  CHECK(std::make_tuple(tall.top, tall.left, tall.height, tall.width) ==
        std::make_tuple(0, 130, 200, 40));
  // An image whose own ratio lies inside the range: the whole image.
  const CropBox whole = DrawResizedCrop(Params(1.5, 2.0, 0.5, 2.0), 100, 120, 7);
  CHECK(whole.fallback);
  CHECK(std::make_tuple(whole.top, whole.left, whole.height, whole.width) ==
        std::make_tuple(0, 0, 100, 120));
}

TEST_CASE("a sample's box depends on its seed, epoch, row, echo copy and view, and nothing else") {
  AugmentParams params;
  params.crop = CropKind::kRandomResized;
  params.image_height = 256;
  params.image_width = 256;
  params.out_height = 224;
  params.out_width = 224;
  params.resized_crop = Params(0.08, 1.0, 3.0 / 4.0, 4.0 / 3.0);
  params.seed = 5;
  const auto box = [](const AugmentParams& p, int64_t epoch, int64_t row, int copy) {
    const SampleTransform t = DrawTransform(p, epoch, row, copy);
    return std::make_tuple(t.rows.src_begin, t.rows.src_size, t.columns.src_begin,
                           t.columns.src_size);
  };
  const auto first = box(params, 3, 77, 1);
  for (int i = 0; i < 50; ++i) box(params, i, i, 0);
  CHECK(box(params, 3, 77, 1) == first);
  // Of 500 keys changed in one part, (almost) none repeat the box: tens of thousands of boxes
  // are possible.
  AugmentParams other_view = params;
  other_view.view = 1;
  AugmentParams other_seed = params;
  other_seed.seed = 6;
  int same_epoch = 0, same_row = 0, same_copy = 0, same_view = 0, same_seed = 0;
  for (int64_t row = 0; row < 500; ++row) {
    const auto base = box(params, 0, row, 0);
    same_epoch += box(params, 1, row, 0) == base;
    same_row += box(params, 0, row + 500, 0) == base;
    same_copy += box(params, 0, row, 1) == base;
    same_view += box(other_view, 0, row, 0) == base;
    same_seed += box(other_seed, 0, row, 0) == base;
  }
  CHECK(same_epoch < 3);
  CHECK(same_row < 3);
  CHECK(same_copy < 3);
  CHECK(same_view < 3);
  CHECK(same_seed < 3);
  // Every resized crop delivers out_height x out_width from its box.
  const SampleTransform t = DrawTransform(params, 0, 0, 0);
  CHECK(t.rows.resized == 224);
  CHECK(t.columns.out == 224);
}

}  // namespace
}  // namespace h5feed::transform
