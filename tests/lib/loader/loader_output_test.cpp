// The Loader's public contract for delivered tensors on the host (LoaderOptions.output):
// element types and layouts, augmentation (flip, padded random crop, center crop), its
// reproducibility, echo copies with their own draws, option errors, and the fallback to host
// batches when a CUDA device is asked for where none is usable.

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cuda/cuda_devices.h"
#include "delivered_images.h"
#include "h5feed/error.h"
#include "h5feed/loader.h"
#include "support/temp_folder.h"
#include "test_files.h"
#include "transform/float_convert.h"

namespace h5feed {
namespace {

using testing::DeliveredImages;
using testing::TempFolder;

constexpr ImageShape kShape{9, 7, 3};
constexpr int64_t kSamples = 70;

struct File : testing::ZstdFile {
  File() : ZstdFile(kSamples, kShape) {}
};

LoaderOptions Normalizing(ElementType type = ElementType::kFloat32, Layout layout = Layout::kNCHW) {
  LoaderOptions options;
  options.batch_size = 16;
  options.normalize = true;
  options.mean = {0.5f, 0.25f, 0.75f};
  options.std = {0.2f, 0.3f, 0.4f};
  options.output.type = type;
  options.output.layout = layout;
  options.seed = 11;
  return options;
}

double Textbook(const LoaderOptions& options, int64_t row, int64_t c, int64_t y, int64_t x) {
  const double pixel = testing::FilePixel(row, (y * kShape.width + x) * kShape.channels + c);
  const auto k = static_cast<size_t>(c);
  return (pixel / 255.0 - options.mean[k]) / options.std[k];
}

// Every delivered element of one epoch, as raw bits, in delivery order.
std::vector<uint32_t> EpochBits(const std::string& path, const LoaderOptions& options) {
  Loader loader = Loader::Open(path, options);
  loader.SetEpoch(0);
  std::vector<uint32_t> bits;
  while (auto batch = loader.Next()) {
    const TensorView view = batch->image_tensor();
    const DeliveredImages images(view, options.output.layout == Layout::kNHWC, view.data);
    for (int64_t n = 0; n < images.samples(); ++n)
      for (int64_t c = 0; c < images.channels(); ++c)
        for (int64_t y = 0; y < images.height(); ++y)
          for (int64_t x = 0; x < images.width(); ++x) bits.push_back(images.bits(n, c, y, x));
  }
  return bits;
}

TEST_CASE("normalized images come as float32, float16 or bfloat16 in NCHW or NHWC") {
  File file;
  const std::vector<uint32_t> float32 = EpochBits(file.path, Normalizing());
  for (ElementType type : {ElementType::kFloat32, ElementType::kFloat16, ElementType::kBFloat16}) {
    for (Layout layout : {Layout::kNCHW, Layout::kNHWC}) {
      CAPTURE(static_cast<int>(type));
      CAPTURE(static_cast<int>(layout));
      const LoaderOptions options = Normalizing(type, layout);
      Loader loader = Loader::Open(file.path, options);
      loader.SetEpoch(0);
      int64_t samples = 0;
      int64_t far = 0;
      while (auto batch = loader.Next()) {
        const TensorView view = batch->image_tensor();
        CHECK(view.type == type);
        CHECK(view.cuda_device == -1);
        CHECK(view.rank == 4);
        const bool nhwc = layout == Layout::kNHWC;
        CHECK(view.shape[nhwc ? 3 : 1] == 3);
        CHECK(view.shape[nhwc ? 1 : 2] == kShape.height);
        CHECK(view.shape[nhwc ? 2 : 3] == kShape.width);
        CHECK(view.strides[3] == 1);
        CHECK(batch->normalized_images().empty() == (type != ElementType::kFloat32));
        const DeliveredImages images(view, nhwc, view.data);
        // float16 has 11 significant bits, bfloat16 8: half an ulp of the largest value (~2).
        const double tolerance = type == ElementType::kFloat32   ? 1e-6
                                 : type == ElementType::kFloat16 ? 1e-3
                                                                 : 8e-3;
        for (int64_t n = 0; n < batch->size(); ++n, ++samples)
          for (int64_t c = 0; c < 3; ++c)
            for (int64_t y = 0; y < kShape.height; ++y)
              for (int64_t x = 0; x < kShape.width; ++x) {
                const double want =
                    Textbook(options, batch->indices()[static_cast<size_t>(n)], c, y, x);
                far += std::abs(images.at(n, c, y, x) - want) > tolerance;
              }
      }
      CHECK(samples == kSamples);
      CHECK(far == 0);
      // Bit for bit: the float32 result rounded once to nearest-even (same order: same seed).
      const std::vector<uint32_t> bits = EpochBits(file.path, options);
      REQUIRE(bits.size() == float32.size());
      if (layout != Layout::kNCHW) continue;
      int64_t not_rounded = 0;
      for (size_t i = 0; i < bits.size(); ++i) {
        float f;
        std::memcpy(&f, &float32[i], sizeof f);
        const uint32_t want = type == ElementType::kFloat16    ? transform::FloatToHalfBits(f)
                              : type == ElementType::kBFloat16 ? transform::FloatToBFloat16Bits(f)
                                                               : float32[i];
        not_rounded += bits[i] != want;
      }
      CHECK(not_rounded == 0);
    }
  }
}

// Which (flip, oy, ox) of a padded crop makes delivered sample n; all matches.
std::vector<std::tuple<bool, int, int>> Explanations(const LoaderOptions& options,
                                                     const DeliveredImages& images, int64_t n,
                                                     int64_t row, int padding) {
  std::vector<std::tuple<bool, int, int>> found;
  for (bool flip : {false, true}) {
    for (int oy = 0; oy <= 2 * padding; ++oy) {
      for (int ox = 0; ox <= 2 * padding; ++ox) {
        bool match = true;
        for (int64_t c = 0; c < 3 && match; ++c)
          for (int64_t y = 0; y < kShape.height && match; ++y)
            for (int64_t x = 0; x < kShape.width && match; ++x) {
              const int64_t sy = y + oy - padding;
              const int64_t sx = (flip ? kShape.width - 1 - x : x) + ox - padding;
              const bool inside = sy >= 0 && sy < kShape.height && sx >= 0 && sx < kShape.width;
              const auto k = static_cast<size_t>(c);
              const double want = inside ? Textbook(options, row, c, sy, sx)
                                         : (0 - options.mean[k]) / options.std[k];
              match = std::abs(images.at(n, c, y, x) - want) < 1e-6;
            }
        if (match) found.emplace_back(flip, oy, ox);
      }
    }
  }
  return found;
}

TEST_CASE("augmented images are flips and zero-padded crops, the same on every run") {
  File file;
  LoaderOptions options = Normalizing();
  options.output.augment.random_flip = true;
  options.output.augment.random_crop_padding = 2;
  Loader loader = Loader::Open(file.path, options);
  loader.SetEpoch(0);
  int flips = 0;
  int explained = 0;
  std::set<std::pair<int, int>> offsets;
  while (auto batch = loader.Next()) {
    const TensorView view = batch->image_tensor();
    const DeliveredImages images(view, false, view.data);
    for (int64_t n = 0; n < batch->size(); ++n) {
      const auto found =
          Explanations(options, images, n, batch->indices()[static_cast<size_t>(n)], 2);
      CHECK(!found.empty());
      if (found.size() != 1) continue;  // a symmetric crop: the flip cannot be told
      ++explained;
      flips += std::get<0>(found[0]);
      offsets.emplace(std::get<1>(found[0]), std::get<2>(found[0]));
    }
  }
  CHECK(explained > 60);
  CHECK(flips > explained / 4);  // Binomial(~70, 1/2): 35 +- 4.2
  CHECK(flips < 3 * explained / 4);
  CHECK(offsets.size() > 12);  // of 25 offsets, about 23 appear among 70 draws
  // The same seed gives the same pixels; another seed other draws (and another order).
  CHECK(EpochBits(file.path, options) == EpochBits(file.path, options));
  LoaderOptions reseeded = options;
  reseeded.seed = 12;
  CHECK(EpochBits(file.path, reseeded) != EpochBits(file.path, options));
}

TEST_CASE("echo copies take their own augmentation draws") {
  File file;
  LoaderOptions options = Normalizing();
  options.output.augment.random_flip = true;
  options.echo = 2;
  Loader loader = Loader::Open(file.path, options);
  loader.SetEpoch(0);
  // (row, image bytes) per copy of each loaded batch.
  int differing_rows = 0;
  int rows = 0;
  while (auto first = loader.Next()) {
    auto second = loader.Next();
    REQUIRE(second);
    REQUIRE(first->size() == second->size());
    const size_t image = static_cast<size_t>(kShape.bytes());
    for (size_t i = 0; i < static_cast<size_t>(first->size()); ++i) {
      for (size_t j = 0; j < static_cast<size_t>(second->size()); ++j) {
        if (second->indices()[j] != first->indices()[i]) continue;
        ++rows;
        differing_rows +=
            !std::equal(first->normalized_images().begin() + static_cast<long>(i * image),
                        first->normalized_images().begin() + static_cast<long>((i + 1) * image),
                        second->normalized_images().begin() + static_cast<long>(j * image));
      }
    }
  }
  CHECK(rows == kSamples);
  CHECK(differing_rows > 15);  // about half of the rows flip in one copy and not the other
  CHECK(differing_rows < 55);
}

TEST_CASE("a center crop delivers the middle of every image") {
  File file;
  LoaderOptions options = Normalizing(ElementType::kFloat32, Layout::kNHWC);
  options.output.augment.center_crop_height = 5;
  options.output.augment.center_crop_width = 3;
  Loader loader = Loader::Open(file.path, options);
  loader.SetEpoch(0);
  int64_t wrong = 0;
  while (auto batch = loader.Next()) {
    const TensorView view = batch->image_tensor();
    CHECK(view.shape == std::array<int64_t, 4>{batch->size(), 5, 3, 3});
    const DeliveredImages images(view, true, view.data);
    for (int64_t n = 0; n < batch->size(); ++n)
      for (int64_t c = 0; c < 3; ++c)
        for (int64_t y = 0; y < 5; ++y)
          for (int64_t x = 0; x < 3; ++x) {
            // (9 - 5) / 2 = 2 rows and (7 - 3) / 2 = 2 columns cut from the top and the left.
            const double want =
                Textbook(options, batch->indices()[static_cast<size_t>(n)], c, y + 2, x + 2);
            wrong += std::abs(images.at(n, c, y, x) - want) > 1e-6;
          }
  }
  CHECK(wrong == 0);
}

TEST_CASE("output options that do not apply or are out of range are refused, naming them") {
  File file;
  const auto refused = [&](const LoaderOptions& options, const std::string& words) {
    try {
      Loader::Open(file.path, options);
      FAIL("expected an error mentioning " << words);
    } catch (const Error& error) {
      CHECK(error.code() == ErrorCode::kInvalidArgument);
      CHECK_MESSAGE(std::string(error.what()).find(words) != std::string::npos, error.what());
    }
  };
  LoaderOptions raw;
  raw.output.type = ElementType::kFloat16;
  refused(raw, "LoaderOptions.normalize");
  refused(raw, "LoaderOptions.output.type applies to normalized batches");
  raw.output.layout = Layout::kNHWC;
  refused(raw, "LoaderOptions.output.type, LoaderOptions.output.layout apply to normalized");
  LoaderOptions device = Normalizing();
  device.output.cuda_device = -2;
  refused(device, "cuda_device");
  LoaderOptions crop = Normalizing();
  crop.output.augment.center_crop_height = 10;
  crop.output.augment.center_crop_width = 3;
  refused(crop, "center_crop");
  crop.output.augment.center_crop_width = 0;
  refused(crop, "center_crop");
  LoaderOptions padding = Normalizing();
  padding.output.augment.random_crop_padding = -1;
  refused(padding, "random_crop_padding");
}

TEST_CASE("a CUDA device asked for where none is usable: one warning, then host batches") {
  if (cuda::QueryDevices().device_count > 0) {
    MESSAGE("a CUDA device is present: the GPU tests (label gpu) cover this loader");
    return;
  }
  File file;
  LoaderOptions options = Normalizing(ElementType::kBFloat16, Layout::kNHWC);
  options.output.augment.random_flip = true;
  options.output.cuda_device = 0;
  std::vector<std::string> warnings;
  options.on_warning = [&](const std::string& warning) { warnings.push_back(warning); };
  const std::vector<uint32_t> on_device = EpochBits(file.path, options);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("no CUDA device is usable") != std::string::npos);
  options.output.cuda_device = -1;
  CHECK(on_device == EpochBits(file.path, options));
  CHECK(warnings.size() == 1);  // the host run asked for nothing it lacked
}

}  // namespace
}  // namespace h5feed
