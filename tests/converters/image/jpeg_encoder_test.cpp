#include "image/jpeg_encoder.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "image/jpeg_decoder.h"

namespace h5feed::converters::image {
namespace {

using Bytes = std::vector<uint8_t>;

// Photo-like pixels: smooth gradients with a little texture and noise.
Bytes PhotoPixels(int height, int width, int channels, uint32_t seed) {
  Bytes out(static_cast<size_t>(height) * width * channels);
  uint32_t state = seed * 2654435761u + 12345;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < channels; ++c) {
        state = state * 1664525u + 1013904223u;
        const double smooth = 128 + 70 * std::sin(0.031 * x + 0.7 * c + seed) +
                              50 * std::cos(0.023 * y - 0.4 * c) + 10 * std::sin(0.2 * (x + y));
        const double noise = static_cast<double>(state >> 24) / 255.0 * 8 - 4;
        out[(static_cast<size_t>(y) * width + x) * channels + c] =
            static_cast<uint8_t>(std::clamp(smooth + noise, 0.0, 255.0));
      }
    }
  }
  return out;
}

// The existing converter decoder, which always delivers RGB.
Bytes DecodeToRgb(const Bytes& jpeg) {
  const DecodePlan plan = PlanJpeg(jpeg, "t.jpg", 0, 0);
  Bytes rgb(static_cast<size_t>(plan.bytes()));
  DecodeJpeg(jpeg, plan, "t.jpg", rgb);
  return rgb;
}

double Psnr(const Bytes& a, const Bytes& b) {
  REQUIRE(a.size() == b.size());
  double squared = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - static_cast<double>(b[i]);
    squared += d * d;
  }
  return 10 * std::log10(255.0 * 255.0 / (squared / static_cast<double>(a.size())));
}

// Where the marker 0xFF `code` starts (the baseline frame header is 0xC0), or jpeg.end().
Bytes::const_iterator FindMarker(const Bytes& jpeg, uint8_t code) {
  const uint8_t marker[] = {0xFF, code};
  return std::search(jpeg.begin(), jpeg.end(), std::begin(marker), std::end(marker));
}

TEST_CASE("an RGB image encoded at quality 90 decodes back at over 35 dB") {
  for (const auto& [height, width] : {std::pair{375, 500}, {500, 375}, {37, 53}}) {
    const Bytes pixels = PhotoPixels(height, width, 3, 1);
    Bytes jpeg;
    EncodeJpeg(pixels, height, width, 3, 90, jpeg);
    const DecodePlan plan = PlanJpeg(jpeg, "t.jpg", 0, 0);
    CHECK(plan.height == height);
    CHECK(plan.width == width);
    CHECK(Psnr(DecodeToRgb(jpeg), pixels) > 35);
  }
}

TEST_CASE("an RGB JPEG is baseline JFIF with 4:2:0 chroma subsampling") {
  const Bytes pixels = PhotoPixels(64, 48, 3, 2);
  Bytes jpeg;
  EncodeJpeg(pixels, 64, 48, 3, 90, jpeg);
  REQUIRE(jpeg.size() > 20);
  CHECK(jpeg[0] == 0xFF);
  CHECK(jpeg[1] == 0xD8);
  CHECK(std::string(jpeg.begin() + 6, jpeg.begin() + 10) == "JFIF");
  // The baseline frame header (SOF0): components 1 (Y) at 2x2, 2 and 3 at 1x1.
  const auto sof = FindMarker(jpeg, 0xC0);
  REQUIRE(sof != jpeg.end());
  CHECK(sof[9] == 3);
  CHECK(sof[11] == 0x22);
  CHECK(sof[14] == 0x11);
  CHECK(sof[17] == 0x11);
}

TEST_CASE("a restart marker ends every segment of 2 MCUs, or of 1 in rows of an odd count") {
  // 4:2:0 colour: MCUs of 16 x 16 pixels; grayscale: 8 x 8. Rows of 5, 3 and 7 MCUs take
  // segments of 1, rows of 4 and 8 of 2.
  for (const auto& size : {std::tuple{100, 75, 3, 16},
                           {64, 48, 3, 16},
                           {37, 53, 1, 8},
                           {64, 64, 3, 16},
                           {30, 64, 1, 8}}) {
    const auto [height, width, channels, mcu] = size;
    CAPTURE(std::get<0>(size));  // clang 14 captures no structured binding
    CAPTURE(std::get<1>(size));
    const Bytes pixels = PhotoPixels(height, width, channels, 6);
    Bytes jpeg;
    EncodeJpeg(pixels, height, width, channels, 90, jpeg);
    CHECK(static_cast<int64_t>(jpeg.size()) <= MaxJpegBytes(height, width, channels));
    const int mcus_per_row = (width + mcu - 1) / mcu;
    const int interval = mcus_per_row % 2 == 0 ? 2 : 1;
    const auto dri = FindMarker(jpeg, 0xDD);
    REQUIRE(dri != jpeg.end());
    CHECK(dri[4] * 256 + dri[5] == interval);
    // RST0, RST1, ... in turn, one between every two segments, in the entropy-coded data.
    const auto sos = FindMarker(jpeg, 0xDA);
    REQUIRE(sos != jpeg.end());
    int restarts = 0;
    for (auto at = sos + 2 + (sos[2] * 256 + sos[3]); at + 1 < jpeg.end(); ++at) {
      if (at[0] == 0xFF && at[1] >= 0xD0 && at[1] <= 0xD7) {
        CHECK(at[1] == 0xD0 + restarts % 8);
        ++restarts;
      }
    }
    CHECK(restarts == (height + mcu - 1) / mcu * mcus_per_row / interval - 1);
  }
}

TEST_CASE("a grayscale image is encoded with one component") {
  const Bytes gray = PhotoPixels(37, 53, 1, 3);
  Bytes jpeg;
  EncodeJpeg(gray, 37, 53, 1, 90, jpeg);
  const Bytes rgb = DecodeToRgb(jpeg);
  Bytes first(gray.size());
  for (size_t i = 0; i < gray.size(); ++i) {
    CHECK(rgb[3 * i] == rgb[3 * i + 1]);
    first[i] = rgb[3 * i];
  }
  CHECK(Psnr(first, gray) > 35);
  const auto sof = FindMarker(jpeg, 0xC0);
  REQUIRE(sof != jpeg.end());
  CHECK(sof[9] == 1);
}

TEST_CASE("no JPEG is larger than MaxJpegBytes, even of noise at quality 100") {
  uint32_t state = 5;
  for (const auto& [height, width, channels] :
       {std::tuple{1, 1, 3}, {17, 33, 3}, {64, 64, 1}, {100, 7, 3}}) {
    Bytes noise(static_cast<size_t>(height) * width * channels);
    for (uint8_t& byte : noise)
      byte = static_cast<uint8_t>((state = state * 1664525u + 1013904223u) >> 24);
    for (int quality : {1, 50, 100}) {
      Bytes jpeg;
      EncodeJpeg(noise, height, width, channels, quality, jpeg);
      CHECK(static_cast<int64_t>(jpeg.size()) <= MaxJpegBytes(height, width, channels));
    }
  }
}

TEST_CASE("a higher quality never makes the same image smaller") {
  const Bytes pixels = PhotoPixels(120, 160, 3, 4);
  Bytes jpeg;
  size_t previous = 0;
  for (int quality : {10, 30, 50, 70, 85, 90, 95, 100}) {
    EncodeJpeg(pixels, 120, 160, 3, quality, jpeg);
    CHECK_MESSAGE(jpeg.size() > previous, "quality " << quality);
    previous = jpeg.size();
  }
}

TEST_CASE("bad arguments are invalid arguments") {
  const Bytes pixels = PhotoPixels(8, 8, 3, 5);
  Bytes jpeg;
  auto check_invalid = [&](auto call) {
    try {
      call();
      FAIL("no error");
    } catch (const Error& error) {
      CHECK(error.code() == ErrorCode::kInvalidArgument);
    }
  };
  check_invalid([&] { EncodeJpeg(pixels, 8, 8, 3, 0, jpeg); });
  check_invalid([&] { EncodeJpeg(pixels, 8, 8, 3, 101, jpeg); });
  check_invalid([&] { EncodeJpeg(pixels, 8, 8, 4, 90, jpeg); });
  check_invalid([&] { EncodeJpeg(pixels, 8, 7, 3, 90, jpeg); });
  check_invalid([&] { EncodeJpeg(pixels, 0, 8, 3, 90, jpeg); });
  check_invalid([&] { MaxJpegBytes(70000, 8, 3); });
  EncodeJpeg(pixels, 8, 8, 3, 90, jpeg);  // still works after the failures
  CHECK(jpeg.size() > 100);
}

}  // namespace
}  // namespace h5feed::converters::image
