#include "pipeline/cpu_normalize.h"

#include <doctest/doctest.h>
#include <tbb/task_arena.h>

#include <array>
#include <cmath>
#include <vector>

#include "h5feed/error.h"

namespace h5feed::pipeline {
namespace {

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
  arena.execute([&] { NormalizeBatch(src, shape, images, params, dest); });
  int64_t mismatches = 0;
  int64_t not_exact = 0;
  for (int64_t n = 0; n < images; ++n) {
    for (int64_t c = 0; c < shape.channels; ++c) {
      for (int64_t h = 0; h < shape.height; ++h) {
        for (int64_t w = 0; w < shape.width; ++w) {
          const float got = dest[static_cast<size_t>(((n * shape.channels + c) * shape.height + h) *
                                                     shape.width + w)];
          const double want = Reference(src, shape, n, c, h, w);
          if (std::abs(got - want) > 1e-6 * std::max(1.0, std::abs(want))) ++mismatches;
          const uint8_t x = src[static_cast<size_t>(((n * shape.height + h) * shape.width + w) *
                                                    shape.channels + c)];
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

TEST_CASE("normalizing rows outside the batch or with the wrong channels is refused") {
  const NormalizeParams params = MakeNormalizeParams(kMean.data(), kStd.data(), 3, 3);
  std::vector<uint8_t> src(2 * 12);
  std::vector<float> dest(2 * 12);
  CHECK_THROWS_AS(NormalizeBatch(src, {2, 2, 3}, 3, params, dest), Error);
  CHECK_THROWS_AS(NormalizeBatch(src, {2, 6, 1}, 2, params, dest), Error);
  CHECK_NOTHROW(NormalizeBatch(src, {2, 2, 3}, 0, params, dest));
}

}  // namespace
}  // namespace h5feed::pipeline
