#include "image/png_decoder.h"

#include <doctest/doctest.h>

#include <string>

#include "h5feed/error.h"
#include "test_images.h"

namespace h5feed::image {
namespace {

using testing::Bytes;

Bytes DecodePngBytes(const Bytes& png) {
  const DecodePlan plan = PlanPng(png, "t.png");
  Bytes rgb(static_cast<size_t>(plan.bytes()));
  DecodePng(png, plan, "t.png", rgb);
  return rgb;
}

TEST_CASE("an 8-bit RGB PNG decodes to exactly its samples") {
  const Bytes rgb = testing::Pattern(19, 31);
  const Bytes png =
      testing::EncodePng(rgb.data(), rgb.size(), 19, 31, SPNG_COLOR_TYPE_TRUECOLOR, 8);
  const DecodePlan plan = PlanPng(png, "t.png");
  CHECK(plan.format == Format::kPng);
  CHECK(plan.height == 19);
  CHECK(plan.width == 31);
  CHECK(DecodePngBytes(png) == rgb);
}

TEST_CASE("alpha is dropped, not composited: a transparent pixel keeps its colour") {
  const Bytes rgba = {10, 20, 30, 0, 40, 50, 60, 128, 70, 80, 90, 255};
  const Bytes png = testing::EncodePng(rgba.data(), rgba.size(), 1, 3,
                                       SPNG_COLOR_TYPE_TRUECOLOR_ALPHA, 8);
  CHECK(DecodePngBytes(png) == Bytes{10, 20, 30, 40, 50, 60, 70, 80, 90});
}

TEST_CASE("16-bit gray is clipped to 255 like PIL's mode I, not scaled") {
  const std::vector<uint16_t> gray = {0, 17, 255, 256, 1000, 65535};
  const Bytes png = testing::EncodePng(gray.data(), gray.size() * 2, 1, 6,
                                       SPNG_COLOR_TYPE_GRAYSCALE, 16);
  CHECK(DecodePngBytes(png) ==
        Bytes{0, 0, 0, 17, 17, 17, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255});
}

TEST_CASE("16-bit RGB keeps the high byte of each sample") {
  const std::vector<uint16_t> rgb = {0x0000, 0x00FF, 0x0100, 0x12FF, 0xAB01, 0xFFFF};
  const Bytes png = testing::EncodePng(rgb.data(), rgb.size() * 2, 1, 2,
                                       SPNG_COLOR_TYPE_TRUECOLOR, 16);
  CHECK(DecodePngBytes(png) == Bytes{0x00, 0x00, 0x01, 0x12, 0xAB, 0xFF});
}

TEST_CASE("low bit-depth gray is scaled by bit replication") {
  // 2-bit samples 0, 1, 2, 3 packed into one byte: 0b00011011.
  const Bytes packed = {0x1B};
  const Bytes png = testing::EncodePng(packed.data(), packed.size(), 1, 4,
                                       SPNG_COLOR_TYPE_GRAYSCALE, 2);
  CHECK(DecodePngBytes(png) == Bytes{0, 0, 0, 85, 85, 85, 170, 170, 170, 255, 255, 255});
}

TEST_CASE("palette indices are looked up in PLTE") {
  const std::vector<spng_plte_entry> palette = {{1, 2, 3, 255}, {200, 100, 50, 255}};
  const Bytes indices = {1, 0, 1};
  const Bytes png = testing::EncodePng(indices.data(), indices.size(), 1, 3,
                                       SPNG_COLOR_TYPE_INDEXED, 8, palette);
  CHECK(DecodePngBytes(png) == Bytes{200, 100, 50, 1, 2, 3, 200, 100, 50});
}

TEST_CASE("a truncated PNG is corrupt data naming the file") {
  const Bytes rgb = testing::Pattern(40, 40);
  const Bytes png =
      testing::EncodePng(rgb.data(), rgb.size(), 40, 40, SPNG_COLOR_TYPE_TRUECOLOR, 8);
  const Bytes cut(png.begin(), png.begin() + static_cast<long>(png.size() * 2 / 3));
  const DecodePlan plan = PlanPng(cut, "cut.png");
  Bytes out(static_cast<size_t>(plan.bytes()));
  try {
    DecodePng(cut, plan, "cut.png", out);
    FAIL("a truncated PNG decoded without error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kCorrupt);
    CHECK(std::string(e.what()).find("cut.png") != std::string::npos);
  }
}

}  // namespace
}  // namespace h5feed::image
