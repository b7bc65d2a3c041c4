#include "transform/normalize.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include "h5feed/error.h"

namespace h5feed::transform {
namespace {

constexpr std::array<float, 3> kMean = {0.485f, 0.456f, 0.406f};
constexpr std::array<float, 3> kStd = {0.229f, 0.224f, 0.225f};

TEST_CASE("a pixel is within 2 float epsilons of the textbook formula computed in double") {
  NormalizeParams params = MakeNormalizeParams(kMean.data(), kStd.data(), 3, 3);
  double worst = 0;
  for (int c = 0; c < 3; ++c) {
    // The error is absolute, relative to the largest term: near x = 255 * mean the result
    // cancels to ~0 and its own ulp says nothing about the arithmetic.
    const double largest =
        std::max(std::abs(255.0 * params.scale[c]), std::abs(double{params.bias[c]}));
    const double bound = 2 * std::numeric_limits<float>::epsilon() * largest;
    for (int x = 0; x < 256; ++x) {
      const auto k = static_cast<size_t>(c);
      const double reference = (x / 255.0 - kMean[k]) / kStd[k];
      const float got = NormalizePixel(static_cast<uint8_t>(x), params.scale[c], params.bias[c]);
      CHECK(std::abs(got - reference) <= bound);
      worst = std::max(worst, std::abs(got - reference));
    }
  }
  CHECK(worst < 5e-7);
}

TEST_CASE("the factors are the documented expressions rounded once from double") {
  NormalizeParams params = MakeNormalizeParams(kMean.data(), kStd.data(), 3, 3);
  CHECK(params.channels == 3);
  for (int c = 0; c < 3; ++c) {
    CHECK(params.scale[c] == static_cast<float>(1.0 / (255.0 * static_cast<double>(kStd[c]))));
    CHECK(params.bias[c] ==
          static_cast<float>(-static_cast<double>(kMean[c]) / static_cast<double>(kStd[c])));
  }
  // The pixel is one rounded multiply then one rounded add, never fused.
  volatile float product = 200.0f * params.scale[1];
  CHECK(NormalizePixel(200, params.scale[1], params.bias[1]) == product + params.bias[1]);
}

TEST_CASE("identity factors (mean 0, std 1) give x / 255") {
  const float zero[1] = {0.0f};
  const float one[1] = {1.0f};
  NormalizeParams params = MakeNormalizeParams(zero, one, 1, 1);
  CHECK(NormalizePixel(0, params.scale[0], params.bias[0]) == 0.0f);
  CHECK(NormalizePixel(255, params.scale[0], params.bias[0]) == doctest::Approx(1.0).epsilon(1e-7));
}

TEST_CASE("grayscale images take the first mean and std") {
  NormalizeParams params = MakeNormalizeParams(kMean.data(), kStd.data(), 3, 1);
  CHECK(params.channels == 1);
  CHECK(params.bias[0] == static_cast<float>(-static_cast<double>(kMean[0]) / kStd[0]));
}

TEST_CASE("normalization parameters out of range are refused with the reason") {
  CHECK_THROWS_AS(MakeNormalizeParams(kMean.data(), kStd.data(), 3, 4), Error);
  CHECK_THROWS_AS(MakeNormalizeParams(kMean.data(), kStd.data(), 3, 0), Error);
  const float bad_std[3] = {0.2f, 0.0f, 0.2f};
  try {
    MakeNormalizeParams(kMean.data(), bad_std, 3, 3);
    FAIL("expected an error");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kInvalidArgument);
    CHECK(std::string(error.what()).find("channel 1") != std::string::npos);
  }
  const float nan_mean[3] = {0.5f, std::numeric_limits<float>::quiet_NaN(), 0.5f};
  CHECK_THROWS_AS(MakeNormalizeParams(nan_mean, kStd.data(), 3, 3), Error);
}

TEST_CASE("a mean on the 0..255 scale is refused, saying the scale is 0..1") {
  const float mean_255[3] = {123.675f, 116.28f, 103.53f};
  const float std_255[3] = {58.395f, 57.12f, 57.375f};
  try {
    MakeNormalizeParams(mean_255, std_255, 3, 3);
    FAIL("expected an error");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kInvalidArgument);
    CHECK(std::string(error.what()).find("channel 0 has mean 123.675, outside 0..1") !=
          std::string::npos);
    CHECK(std::string(error.what()).find("divide values on the 0..255 scale by 255") !=
          std::string::npos);
  }
  const float negative_mean[3] = {0.5f, 0.5f, -0.5f};
  CHECK_THROWS_AS(MakeNormalizeParams(negative_mean, kStd.data(), 3, 3), Error);
  const float edges[3] = {0.0f, 1.0f, 0.5f};  // 0 and 1 themselves are means of x / 255
  CHECK(MakeNormalizeParams(edges, kStd.data(), 3, 3).channels == 3);
}

}  // namespace
}  // namespace h5feed::transform
