// Segmentation masks as PNG files: class ids, never colours (png_mask_decoder.h).

#include "image/png_mask_decoder.h"

#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "h5feed/error.h"
#include "test_images.h"

namespace h5feed::converters::image {
namespace {

using testing::EncodePng;

std::vector<spng_plte_entry> Palette(int entries) {
  std::vector<spng_plte_entry> palette(entries);
  for (int i = 0; i < entries; ++i) {
    palette[i] = {static_cast<uint8_t>(i * 7), static_cast<uint8_t>(255 - i), 3, 255};
  }
  return palette;
}

std::vector<uint8_t> Decode(const std::vector<uint8_t>& png, MaskHeader* header = nullptr) {
  const MaskHeader read = ReadPngMaskHeader(png, "mask.png");
  if (header != nullptr) *header = read;
  std::vector<uint8_t> out(static_cast<size_t>(read.bytes()));
  DecodePngMask(png, read, "mask.png", out);
  return out;
}

TEST_CASE("a palette mask gives its indices, not the palette's colours, 255 included") {
  std::vector<uint8_t> indices(5 * 7);
  for (size_t i = 0; i < indices.size(); ++i) indices[i] = static_cast<uint8_t>(i * 11 % 21);
  indices[0] = 255;
  const auto png =
      EncodePng(indices.data(), indices.size(), 5, 7, SPNG_COLOR_TYPE_INDEXED, 8, Palette(256));
  MaskHeader header;
  CHECK(Decode(png, &header) == indices);
  CHECK(header.height == 5);
  CHECK(header.width == 7);
  CHECK(header.value_bytes == 1);
}

TEST_CASE("a 4-bit palette mask unpacks each row's indices, odd widths included") {
  const int height = 3, width = 5;
  std::vector<uint8_t> indices(height * width), packed(height * 3, 0);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const uint8_t value = static_cast<uint8_t>((y * width + x) % 16);
      indices[y * width + x] = value;
      packed[y * 3 + x / 2] |= static_cast<uint8_t>(x % 2 == 0 ? value << 4 : value);
    }
  }
  const auto png = EncodePng(packed.data(), packed.size(), height, width, SPNG_COLOR_TYPE_INDEXED,
                             4, Palette(16));
  CHECK(Decode(png) == indices);
}

TEST_CASE("an 8-bit gray mask gives its values and a 16-bit one its uint16 values") {
  std::vector<uint8_t> gray = {0, 1, 2, 200, 254, 255};
  CHECK(Decode(EncodePng(gray.data(), gray.size(), 2, 3, SPNG_COLOR_TYPE_GRAYSCALE, 8)) == gray);
  std::vector<uint16_t> wide = {0, 255, 256, 1000, 40000, 65535};
  MaskHeader header;
  const auto out =
      Decode(EncodePng(wide.data(), wide.size() * 2, 3, 2, SPNG_COLOR_TYPE_GRAYSCALE, 16), &header);
  CHECK(header.value_bytes == 2);
  std::vector<uint16_t> values(wide.size());
  std::memcpy(values.data(), out.data(), out.size());
  CHECK(values == wide);
}

TEST_CASE("a colour PNG is refused as corrupt, saying which masks are taken") {
  std::vector<uint8_t> rgb(2 * 2 * 3, 9);
  const auto png = EncodePng(rgb.data(), rgb.size(), 2, 2, SPNG_COLOR_TYPE_TRUECOLOR, 8);
  try {
    ReadPngMaskHeader(png, "colour.png");
    FAIL("a colour mask was read");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kCorrupt);
    CHECK(std::string(e.what()).find("colour.png") != std::string::npos);
    CHECK(std::string(e.what()).find("palette PNG") != std::string::npos);
  }
}

TEST_CASE("a 1-bit gray mask gives 0 and 1, as PIL's mode 1 array, odd widths included") {
  // PIL's Image.convert("1").save() writes these; they were refused as "holding colours".
  const int height = 3, width = 11;
  std::vector<uint8_t> values(height * width), packed(height * 2, 0);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const uint8_t value = static_cast<uint8_t>((x * 3 + y) % 5 < 2);
      values[y * width + x] = value;
      packed[y * 2 + x / 8] |= static_cast<uint8_t>(value << (7 - x % 8));
    }
  }
  MaskHeader header;
  CHECK(Decode(EncodePng(packed.data(), packed.size(), height, width, SPNG_COLOR_TYPE_GRAYSCALE, 1),
               &header) == values);
  CHECK(header.value_bytes == 1);
}

TEST_CASE("2- and 4-bit gray and gray with alpha are refused, each saying what it is") {
  std::vector<uint8_t> packed(2, 0x5a);  // 2 rows of 2 pixels: one byte each
  for (const int depth : {2, 4}) {
    const auto png =
        EncodePng(packed.data(), packed.size(), 2, 2, SPNG_COLOR_TYPE_GRAYSCALE, depth);
    try {
      ReadPngMaskHeader(png, "gray.png");
      FAIL("a " << depth << "-bit gray mask was read");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find(std::to_string(depth) + "-bit gray holds values that PIL "
                                                               "scales") != std::string::npos);
    }
  }
  std::vector<uint8_t> gray_alpha(2 * 2 * 2, 7);
  const auto png =
      EncodePng(gray_alpha.data(), gray_alpha.size(), 2, 2, SPNG_COLOR_TYPE_GRAYSCALE_ALPHA, 8);
  CHECK_THROWS_WITH_AS(ReadPngMaskHeader(png, "la.png"),
                       doctest::Contains("gray with alpha (colour type 4 at 8 bits)"), Error);
}

TEST_CASE("an empty mask file is refused as empty") {
  CHECK_THROWS_WITH_AS(ReadPngMaskHeader({}, "empty.png"), doctest::Contains("the file is empty"),
                       Error);
}

TEST_CASE("a truncated mask is corrupt data") {
  std::vector<uint8_t> gray(64 * 64, 3);
  auto png = EncodePng(gray.data(), gray.size(), 64, 64, SPNG_COLOR_TYPE_GRAYSCALE, 8);
  const MaskHeader header = ReadPngMaskHeader(png, "short.png");
  png.resize(png.size() - 20);
  std::vector<uint8_t> out(static_cast<size_t>(header.bytes()));
  CHECK_THROWS_AS(DecodePngMask(png, header, "short.png", out), Error);
}

}  // namespace
}  // namespace h5feed::converters::image
