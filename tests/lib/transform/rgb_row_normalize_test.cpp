// NormalizeRgbRow against NormalizePixel element by element, bit for bit: every length around
// its 16-pixel blocks, read forwards and mirrored, with the scale and bias of ImageNet's mean
// and std.
#include "transform/rgb_row_normalize.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "transform/normalize.h"

namespace h5feed::transform {
namespace {

TEST_CASE("a row's three planes equal NormalizePixel of each channel, forwards and mirrored") {
  const float mean[3] = {0.485f, 0.456f, 0.406f};
  const float std[3] = {0.229f, 0.224f, 0.225f};
  const NormalizeParams params = MakeNormalizeParams(mean, std, 3, 3);
  constexpr int64_t kMost = 70;
  std::vector<uint8_t> pixels(3 * kMost);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i * 37 + i / 5);
  for (int64_t n = 0; n <= kMost; ++n) {
    for (const bool mirrored : {false, true}) {
      CAPTURE(n);
      CAPTURE(mirrored);
      // Mirrored, x = 0 is the last pixel of the row and x = n - 1 its first.
      const uint8_t* first = mirrored ? pixels.data() + 3 * (n - 1) : pixels.data();
      constexpr int64_t kPlane = kMost + 1;  // one float more, to see nothing past the row written
      std::vector<float> planes(3 * kPlane, -1.0f);
      float* const out[3] = {planes.data(), planes.data() + kPlane, planes.data() + 2 * kPlane};
      if (n > 0) NormalizeRgbRow(first, n, mirrored, params.scale, params.bias, out);
      bool equal = true;
      for (int64_t x = 0; x < n; ++x) {
        const int64_t pixel = mirrored ? n - 1 - x : x;
        for (int c = 0; c < 3; ++c) {
          const float expected = NormalizePixel(pixels[static_cast<size_t>(3 * pixel + c)],
                                                params.scale[c], params.bias[c]);
          equal = equal && std::memcmp(&out[c][x], &expected, sizeof expected) == 0;
        }
      }
      CHECK(equal);
      // Nothing past the row is written.
      for (int c = 0; c < 3; ++c) CHECK(out[c][n] == -1.0f);
    }
  }
}

}  // namespace
}  // namespace h5feed::transform
