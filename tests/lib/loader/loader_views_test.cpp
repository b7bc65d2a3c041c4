// The Loader's public contract for resizing views (output.views, random resized crops, the
// validation resize, SetOutputSize): every view of a sample is the transform's own function
// of the one stored image and its (seed, epoch, row, echo copy, view) key, labels come once
// per sample, sizes change between epochs within the room made at Open, and bad options are
// refused naming them.

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "h5feed/loader.h"
#include "support/caught_error.h"
#include "test_files.h"
#include "transform/augment.h"
#include "transform/normalize.h"
#include "transform/resize_sample.h"

namespace h5feed {
namespace {

constexpr ImageShape kShape{30, 40, 3};
constexpr int64_t kSamples = 40;

struct File : testing::ZstdFile {
  File() : ZstdFile(kSamples, kShape) {}
};

AugmentOptions ResizedCrop(int64_t height, int64_t width, double scale_min, double scale_max,
                           int count) {
  AugmentOptions augment;
  augment.random_resized_crop.height = height;
  augment.random_resized_crop.width = width;
  augment.random_resized_crop.scale_min = scale_min;
  augment.random_resized_crop.scale_max = scale_max;
  augment.random_flip = true;
  augment.count = count;
  return augment;
}

LoaderOptions WithViews() {
  LoaderOptions options;
  options.batch_size = 16;
  options.normalize = true;
  options.seed = 3;
  options.output.views = {ResizedCrop(24, 24, 0.4, 1.0, 2), ResizedCrop(12, 10, 0.05, 0.4, 3)};
  return options;
}

// The float32 NCHW image view `view` of dataset row `row` should be: the transform's draws for
// its key, resized and normalized by the transform's CPU functions from the stored image.
std::vector<float> Expected(const LoaderOptions& options, const AugmentOptions& augment, int view,
                            int64_t epoch, int64_t row, int copy) {
  std::vector<uint8_t> stored(static_cast<size_t>(kShape.bytes()));
  for (size_t j = 0; j < stored.size(); ++j) {
    stored[j] = testing::FilePixel(row, static_cast<int64_t>(j));
  }
  transform::AugmentParams params;
  params.seed = options.seed;
  params.view = view;
  params.crop = transform::CropKind::kRandomResized;
  params.image_height = static_cast<int32_t>(kShape.height);
  params.image_width = static_cast<int32_t>(kShape.width);
  params.out_height = static_cast<int32_t>(augment.random_resized_crop.height);
  params.out_width = static_cast<int32_t>(augment.random_resized_crop.width);
  params.random_flip = augment.random_flip;
  const RandomResizedCropOptions& crop = augment.random_resized_crop;
  params.resized_crop = {crop.scale_min, crop.scale_max,           crop.ratio_min,
                         crop.ratio_max, std::log(crop.ratio_min), std::log(crop.ratio_max)};
  const transform::SampleTransform t = transform::DrawTransform(params, epoch, row, copy);
  const int64_t h = params.out_height, w = params.out_width;
  std::vector<uint8_t> resized(static_cast<size_t>(h * w * 3));
  transform::ResizeSampleRows(stored.data(), kShape, t, true, 0, h, resized.data());
  const transform::NormalizeParams normalize =
      transform::MakeNormalizeParams(options.mean.data(), options.std.data(), 3, 3);
  std::vector<float> out(resized.size());
  for (int64_t c = 0; c < 3; ++c)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) {
        const int64_t source = t.flip ? w - 1 - x : x;
        out[static_cast<size_t>((c * h + y) * w + x)] =
            transform::NormalizePixel(resized[static_cast<size_t>((y * w + source) * 3 + c)],
                                      normalize.scale[c], normalize.bias[c]);
      }
  return out;
}

TEST_CASE("every view of a sample is its own crop of the stored image, and labels come once") {
  File file;
  const LoaderOptions options = WithViews();
  Loader loader = Loader::Open(file.path, options);
  loader.SetEpoch(2);
  int64_t checked = 0;
  while (auto batch = loader.Next()) {
    REQUIRE(batch->views() == 5);
    CHECK(batch->image_tensor(5).data == nullptr);
    for (int view = 0; view < 5; ++view) {
      const AugmentOptions& augment = options.output.views[view < 2 ? 0 : 1];
      const TensorView tensor = batch->image_tensor(view);
      const int64_t h = augment.random_resized_crop.height;
      const int64_t w = augment.random_resized_crop.width;
      CHECK(tensor.shape == std::array<int64_t, 4>{batch->size(), 3, h, w});
      const auto* images = static_cast<const float*>(tensor.data);
      for (int64_t n = 0; n < batch->size(); ++n) {
        const int64_t row = batch->indices()[static_cast<size_t>(n)];
        CHECK(batch->labels()[static_cast<size_t>(n)] == row % 7);  // WriteH5feedFile's labels
        const std::vector<float> want = Expected(options, augment, view, 2, row, 0);
        CHECK(std::memcmp(images + n * 3 * h * w, want.data(), want.size() * sizeof(float)) == 0);
        ++checked;
      }
    }
  }
  CHECK(checked == 5 * kSamples);
}

TEST_CASE("echo copies of a multi-view batch draw their own crops") {
  File file;
  LoaderOptions options = WithViews();
  options.echo = 2;
  Loader loader = Loader::Open(file.path, options);
  loader.SetEpoch(0);
  auto first = loader.Next();
  auto second = loader.Next();
  REQUIRE(first);
  REQUIRE(second);
  const TensorView tensor = second->image_tensor(3);
  for (int64_t n = 0; n < second->size(); ++n) {
    const int64_t row = second->indices()[static_cast<size_t>(n)];
    const std::vector<float> want = Expected(options, options.output.views[1], 3, 0, row, 1);
    CHECK(std::memcmp(static_cast<const float*>(tensor.data) + n * 3 * 12 * 10, want.data(),
                      want.size() * sizeof(float)) == 0);
  }
}

TEST_CASE("SetOutputSize changes a view's size from the next epoch, within Open's room") {
  File file;
  LoaderOptions options;
  options.batch_size = 8;
  options.normalize = true;
  options.output.augment = ResizedCrop(16, 16, 0.08, 1.0, 1);
  options.output.augment.max_output_height = 24;
  options.output.augment.max_output_width = 32;
  Loader loader = Loader::Open(file.path, options);
  loader.SetEpoch(0);
  auto before = loader.Next();
  REQUIRE(before);
  loader.SetOutputSize(24, 32);
  CHECK(loader.Next()->image_tensor().shape[2] == 16);  // the epoch goes on at its size
  loader.SetEpoch(1);
  auto after = loader.Next();
  REQUIRE(after);
  CHECK(after->image_tensor().shape == std::array<int64_t, 4>{8, 3, 24, 32});
  CHECK(before->image_tensor().shape == std::array<int64_t, 4>{8, 3, 16, 16});
  // Beyond max_output: the message names the call, not Open's options as if they were wrong.
  const Error beyond = testing::CaughtError([&] { loader.SetOutputSize(25, 32); });
  CHECK(beyond.code() == ErrorCode::kInvalidArgument);
  CHECK(std::string(beyond.what()).find("SetOutputSize: 25x32 is beyond") != std::string::npos);
  CHECK_THROWS_AS(loader.SetOutputSize(24, 24, 1), Error);  // no such view spec
}

TEST_CASE("resizing options out of range are refused, naming them") {
  File file;
  const auto refused = [&](const LoaderOptions& options, const std::string& words) {
    const Error error = testing::CaughtError([&] { Loader::Open(file.path, options); });
    CHECK(error.code() == ErrorCode::kInvalidArgument);
    CHECK_MESSAGE(std::string(error.what()).find(words) != std::string::npos,
                  std::string(error.what()));
  };
  LoaderOptions options = WithViews();
  options.output.views[1].random_resized_crop.scale_min = 0.5;  // above scale_max
  refused(options, "views[1].random_resized_crop.scale");
  options = WithViews();
  options.output.views[0].random_resized_crop.ratio_min = 0;
  refused(options, "views[0].random_resized_crop.ratio");
  options = WithViews();
  options.output.views[0].center_crop_height = options.output.views[0].center_crop_width = 8;
  refused(options, "random_resized_crop is its own crop");
  options = WithViews();
  options.output.views[1].count = 20;
  refused(options, "count");
  options = WithViews();
  options.output.views[0].max_output_height = 8;
  options.output.views[0].max_output_width = 8;
  refused(options, "max_output");
  LoaderOptions validation;
  validation.batch_size = 8;
  validation.normalize = true;
  validation.output.augment.resize_shorter = 20;  // 30x40 -> 20x26
  validation.output.augment.center_crop_height = 21;
  validation.output.augment.center_crop_width = 20;
  refused(validation, "crop at most the resized size");
}

}  // namespace
}  // namespace h5feed
