#include "pipeline/cpu_normalize.h"

#include <doctest/doctest.h>
#include <tbb/task_arena.h>

#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "h5feed/error.h"
#include "plain_normalize.h"
#include "transform/float_convert.h"

namespace h5feed::pipeline {
namespace {

using transform::AugmentParams;
using transform::DrawTransform;
using transform::FloatToBFloat16Bits;
using transform::FloatToHalfBits;
using transform::MakeNormalizeParams;
using transform::MakeOutputSpec;
using transform::NormalizeParams;
using transform::NormalizePixel;
using transform::OutputSpec;
using transform::SampleTransform;
using transform::SourceColumn;

constexpr std::array<float, 3> kMean = {0.485f, 0.456f, 0.406f};
constexpr std::array<float, 3> kStd = {0.229f, 0.224f, 0.225f};

std::vector<uint8_t> Pattern(size_t bytes) {
  std::vector<uint8_t> data(bytes);
  for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<uint8_t>((i * 2654435761u) >> 13);
  return data;
}

// The straightforward loop: NCHW index from NHWC, textbook formula in double.
double Reference(const std::vector<uint8_t>& src, const ImageShape& s, int64_t n, int64_t c,
                 int64_t h, int64_t w) {
  const uint8_t x = src[static_cast<size_t>(((n * s.height + h) * s.width + w) * s.channels + c)];
  return (x / 255.0 - kMean[static_cast<size_t>(c)]) / kStd[static_cast<size_t>(c)];
}

void CheckAgainstReference(const ImageShape& shape, int64_t images, int threads) {
  const NormalizeParams params =
      MakeNormalizeParams(kMean.data(), kStd.data(), 3, static_cast<int>(shape.channels));
  std::vector<uint8_t> src = Pattern(static_cast<size_t>(images * shape.bytes()));
  std::vector<float> dest(src.size(), -100.0f);
  tbb::task_arena arena(threads);
  arena.execute([&] { testing::NormalizePlain(src, shape, images, params, dest); });
  int64_t mismatches = 0;
  int64_t not_exact = 0;
  for (int64_t n = 0; n < images; ++n) {
    for (int64_t c = 0; c < shape.channels; ++c) {
      for (int64_t h = 0; h < shape.height; ++h) {
        for (int64_t w = 0; w < shape.width; ++w) {
          const float got = dest[static_cast<size_t>(
              ((n * shape.channels + c) * shape.height + h) * shape.width + w)];
          const double want = Reference(src, shape, n, c, h, w);
          if (std::abs(got - want) > 1e-6 * std::max(1.0, std::abs(want))) ++mismatches;
          const uint8_t x = src[static_cast<size_t>(
              ((n * shape.height + h) * shape.width + w) * shape.channels + c)];
          if (got != NormalizePixel(x, params.scale[c], params.bias[c])) ++not_exact;
        }
      }
    }
  }
  CHECK(mismatches == 0);
  CHECK(not_exact == 0);  // bit for bit the per-pixel function the GPU kernel uses
}

TEST_CASE("a batch is normalized to NCHW floats equal to a straightforward reference") {
  CheckAgainstReference({7, 5, 3}, 9, 2);
  CheckAgainstReference({32, 32, 3}, 17, 2);
}

TEST_CASE("one large image is normalized by several workers with the same result") {
  CheckAgainstReference({301, 203, 3}, 1, 2);
  CheckAgainstReference({301, 203, 3}, 2, 1);
}

TEST_CASE("grayscale and two-channel images are normalized per channel") {
  CheckAgainstReference({13, 11, 1}, 4, 2);
  CheckAgainstReference({13, 11, 2}, 4, 2);
}

// Delivered element (n, c, y, x) by augment.h's definition, one pixel at a time.
uint16_t ReferenceElement(const std::vector<uint8_t>& src, const ImageShape& s,
                          const OutputSpec& spec, const SampleKeys& keys, int64_t n, int c,
                          int64_t y, int64_t x, float* as_float) {
  const AugmentParams& a = spec.augment;
  const SampleTransform t =
      DrawTransform(a, keys.epoch, keys.rows[static_cast<size_t>(n)], keys.copy);
  const int64_t sy = y + t.shift_y;
  const int64_t sx = SourceColumn(a, t, static_cast<int32_t>(x));
  uint8_t pixel = 0;
  if (sy >= 0 && sy < a.out_height && sx >= 0 && sx < a.out_width) {
    const int64_t stored_y = a.crop_top + sy;
    const int64_t stored_x = a.crop_left + sx;
    const int64_t index = ((n * s.height + stored_y) * s.width + stored_x) * s.channels + c;
    pixel = src[static_cast<size_t>(index)];
  }
  *as_float = NormalizePixel(pixel, spec.normalize.scale[c], spec.normalize.bias[c]);
  return spec.type == ElementType::kFloat16 ? FloatToHalfBits(*as_float)
                                            : FloatToBFloat16Bits(*as_float);
}

int64_t CountMismatches(const ImageShape& shape, int64_t images, const OutputOptions& output) {
  const NormalizeParams params =
      MakeNormalizeParams(kMean.data(), kStd.data(), 3, static_cast<int>(shape.channels));
  const OutputSpec spec = MakeOutputSpec(params, shape, output, 99);
  std::vector<uint8_t> src = Pattern(static_cast<size_t>(images * shape.bytes()));
  std::vector<int64_t> rows;
  for (int64_t n = 0; n < images; ++n) rows.push_back(1000 + 7 * n);
  const SampleKeys keys{3, 1, rows};
  std::vector<uint8_t> dest(static_cast<size_t>(images * spec.image_bytes()), 0xee);
  tbb::task_arena arena(2);
  arena.execute([&] { NormalizeBatch(src, shape, images, spec, keys, dest); });
  const int64_t ho = spec.augment.out_height;
  const int64_t wo = spec.augment.out_width;
  const int64_t channels = shape.channels;
  int64_t mismatches = 0;
  for (int64_t n = 0; n < images; ++n) {
    for (int c = 0; c < channels; ++c) {
      for (int64_t y = 0; y < ho; ++y) {
        for (int64_t x = 0; x < wo; ++x) {
          const int64_t element = output.layout == Layout::kNCHW
                                      ? ((n * channels + c) * ho + y) * wo + x
                                      : ((n * ho + y) * wo + x) * channels + c;
          float want_float = 0;
          const uint16_t want_bits =
              ReferenceElement(src, shape, spec, keys, n, c, y, x, &want_float);
          if (spec.type == ElementType::kFloat32) {
            float got;
            std::memcpy(&got, dest.data() + element * 4, 4);
            mismatches += got != want_float;
          } else if (spec.type == ElementType::kUint8) {
            // Not normalized: the pixel itself (its identity normalization is exact).
            mismatches += dest[static_cast<size_t>(element)] != want_float;
          } else {
            uint16_t got;
            std::memcpy(&got, dest.data() + element * 2, 2);
            mismatches += got != want_bits;
          }
        }
      }
    }
  }
  return mismatches;
}

TEST_CASE("every type, layout and augmentation equals the per-pixel definition") {
  for (ElementType type : {ElementType::kFloat32, ElementType::kFloat16, ElementType::kBFloat16,
                           ElementType::kUint8}) {
    for (Layout layout : {Layout::kNCHW, Layout::kNHWC}) {
      OutputOptions output;
      output.type = type;
      output.layout = layout;
      CAPTURE(static_cast<int>(type));
      CAPTURE(static_cast<int>(layout));
      CHECK(CountMismatches({9, 7, 3}, 5, output) == 0);
      output.augment.random_flip = true;
      CHECK(CountMismatches({9, 7, 3}, 12, output) == 0);
      output.augment.random_crop_padding = 3;
      CHECK(CountMismatches({9, 7, 3}, 12, output) == 0);
      // Rows of 16 pixels and more: whole 16-pixel blocks, then a tail (rgb_row_normalize.h).
      CHECK(CountMismatches({20, 45, 3}, 8, output) == 0);
      CHECK(CountMismatches({9, 7, 1}, 12, output) == 0);
      output.augment.center_crop_height = 6;
      output.augment.center_crop_width = 4;
      CHECK(CountMismatches({9, 7, 3}, 12, output) == 0);
      output.augment.random_crop_padding = 9;  // more padding than image: whole rows of zeros
      CHECK(CountMismatches({9, 7, 2}, 12, output) == 0);
    }
  }
}

TEST_CASE("a center crop delivers the middle of the image, its offsets torchvision's") {
  const ImageShape shape{5, 6, 1};
  std::vector<uint8_t> src(30);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i);
  const float zero[1] = {0.0f};
  const float one[1] = {1.0f / 255};  // std 1/255: the output is the pixel value itself
  OutputOptions output;
  output.augment.center_crop_height = 2;
  output.augment.center_crop_width = 3;
  const OutputSpec spec = MakeOutputSpec(MakeNormalizeParams(zero, one, 1, 1), shape, output, 0);
  std::vector<uint8_t> dest(static_cast<size_t>(spec.image_bytes()));
  NormalizeBatch(src, shape, 1, spec, SampleKeys{}, dest);
  std::vector<float> floats(6);
  std::memcpy(floats.data(), dest.data(), dest.size());
  std::vector<long> got;  // std 1/255 makes the scale 1 up to float rounding
  for (float f : floats) got.push_back(std::lround(f));
  // CenterCrop's offsets are round((5 - 2) / 2) = round(1.5) = 2 and round((6 - 3) / 2) = 2
  // (Python's round, ties to even): rows 2 and 3, columns 2 .. 4.
  CHECK(got == std::vector<long>{14, 15, 16, 20, 21, 22});
}

TEST_CASE("flipped samples are mirror images of their rows") {
  const ImageShape shape{4, 8, 1};
  std::vector<uint8_t> src(4 * 32);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(1 + i % 32);
  const float zero[1] = {0.0f};
  const float one[1] = {1.0f / 255};
  OutputOptions output;
  output.augment.random_flip = true;
  const OutputSpec spec = MakeOutputSpec(MakeNormalizeParams(zero, one, 1, 1), shape, output, 5);
  std::vector<int64_t> rows = {0, 1, 2, 3};
  std::vector<uint8_t> dest(static_cast<size_t>(4 * spec.image_bytes()));
  NormalizeBatch(src, shape, 4, spec, SampleKeys{0, 0, rows}, dest);
  std::vector<float> got(4 * 32);
  std::memcpy(got.data(), dest.data(), dest.size());
  int mirrored = 0;
  for (size_t n = 0; n < 4; ++n) {
    const bool flipped = std::lround(got[n * 32]) == 8;  // column 7 of row 0 holds 8
    mirrored += flipped;
    for (size_t y = 0; y < 4; ++y) {
      for (size_t x = 0; x < 8; ++x) {
        const size_t source_x = flipped ? 7 - x : x;
        CHECK(std::lround(got[n * 32 + y * 8 + x]) == src[n * 32 + y * 8 + source_x]);
      }
    }
  }
  CHECK(mirrored > 0);  // with seed 5 both kinds occur among the 4 rows: both are checked
  CHECK(mirrored < 4);
}

TEST_CASE("normalizing rows outside the batch or with the wrong channels is refused") {
  const NormalizeParams params = MakeNormalizeParams(kMean.data(), kStd.data(), 3, 3);
  std::vector<uint8_t> src(2 * 12);
  std::vector<float> dest(2 * 12);
  CHECK_THROWS_AS(testing::NormalizePlain(src, {2, 2, 3}, 3, params, dest), Error);
  CHECK_THROWS_AS(testing::NormalizePlain(src, {2, 6, 1}, 2, params, dest), Error);
  CHECK_NOTHROW(testing::NormalizePlain(src, {2, 2, 3}, 0, params, dest));
}

}  // namespace
}  // namespace h5feed::pipeline
