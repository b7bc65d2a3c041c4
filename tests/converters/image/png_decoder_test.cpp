#include "image/png_decoder.h"

#include <doctest/doctest.h>

#include <zlib.h>

#include <cstring>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "image/spng_context.h"
#include "test_images.h"

namespace h5feed::converters::image {
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
  const Bytes png =
      testing::EncodePng(rgba.data(), rgba.size(), 1, 3, SPNG_COLOR_TYPE_TRUECOLOR_ALPHA, 8);
  CHECK(DecodePngBytes(png) == Bytes{10, 20, 30, 40, 50, 60, 70, 80, 90});
}

TEST_CASE("16-bit gray is clipped to 255 like PIL's mode I, not scaled") {
  const std::vector<uint16_t> gray = {0, 17, 255, 256, 1000, 65535};
  const Bytes png =
      testing::EncodePng(gray.data(), gray.size() * 2, 1, 6, SPNG_COLOR_TYPE_GRAYSCALE, 16);
  CHECK(DecodePngBytes(png) ==
        Bytes{0, 0, 0, 17, 17, 17, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255});
}

TEST_CASE("16-bit RGB keeps the high byte of each sample") {
  const std::vector<uint16_t> rgb = {0x0000, 0x00FF, 0x0100, 0x12FF, 0xAB01, 0xFFFF};
  const Bytes png =
      testing::EncodePng(rgb.data(), rgb.size() * 2, 1, 2, SPNG_COLOR_TYPE_TRUECOLOR, 16);
  CHECK(DecodePngBytes(png) == Bytes{0x00, 0x00, 0x01, 0x12, 0xAB, 0xFF});
}

TEST_CASE("low bit-depth gray is scaled by bit replication") {
  // 2-bit samples 0, 1, 2, 3 packed into one byte: 0b00011011.
  const Bytes packed = {0x1B};
  const Bytes png =
      testing::EncodePng(packed.data(), packed.size(), 1, 4, SPNG_COLOR_TYPE_GRAYSCALE, 2);
  CHECK(DecodePngBytes(png) == Bytes{0, 0, 0, 85, 85, 85, 170, 170, 170, 255, 255, 255});
}

TEST_CASE("palette indices are looked up in PLTE") {
  const std::vector<spng_plte_entry> palette = {{1, 2, 3, 255}, {200, 100, 50, 255}};
  const Bytes indices = {1, 0, 1};
  const Bytes png =
      testing::EncodePng(indices.data(), indices.size(), 1, 3, SPNG_COLOR_TYPE_INDEXED, 8, palette);
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

TEST_CASE("a valid PNG with a side over h5feed's limit is refused as too large, not as broken") {
  // A 1 x 70000 strip is 210 kB of pixels, and PIL opens it: the file is fine, the limit
  // (kMaxImageSide) is h5feed's. libspng's own check called it "unreadable header (image width
  // exceeds user limit)", with the advice to re-create the file.
  const Bytes strip(size_t{70000} * 3, 9);
  const Bytes png =
      testing::EncodePng(strip.data(), strip.size(), 1, 70000, SPNG_COLOR_TYPE_TRUECOLOR, 8);
  try {
    PlanPng(png, "panorama.png");
    FAIL("a PNG 70000 pixels wide was planned");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kCorrupt);  // skipped as a broken file is, and recorded
    const std::string message = e.what();
    CHECK(message.find("'panorama.png': its size 70000x1 is more than h5feed decodes (at most "
                       "65535 pixels per side") != std::string::npos);
    CHECK(message.find("shrink the image") != std::string::npos);
    CHECK(message.find("unreadable header") == std::string::npos);
  }
}

Bytes DecodePngRowByRow(const Bytes& png) {
  const DecodePlan plan = PlanPng(png, "t.png");
  REQUIRE(plan.rows_in_order);
  Bytes rgb;
  int rows = 0;
  DecodePngRows(png, plan, "t.png", [&](std::span<const uint8_t> row) {
    CHECK(row.size() == static_cast<size_t>(plan.width) * 3);
    rgb.insert(rgb.end(), row.begin(), row.end());
    ++rows;
  });
  CHECK(rows == plan.height);
  return rgb;
}

TEST_CASE("row-by-row decoding gives the whole decode's pixels for every colour type and depth") {
  struct Case {
    uint8_t color_type, depth;
    int channels;
  };
  const std::vector<spng_plte_entry> short_palette = {
      {1, 2, 3, 255}, {200, 100, 50, 255}, {9, 8, 7, 255}};
  for (const Case c :
       {Case{SPNG_COLOR_TYPE_TRUECOLOR, 8, 3}, Case{SPNG_COLOR_TYPE_TRUECOLOR, 16, 3},
        Case{SPNG_COLOR_TYPE_TRUECOLOR_ALPHA, 8, 4}, Case{SPNG_COLOR_TYPE_GRAYSCALE, 16, 1},
        Case{SPNG_COLOR_TYPE_GRAYSCALE, 2, 1}, Case{SPNG_COLOR_TYPE_GRAYSCALE_ALPHA, 8, 2},
        Case{SPNG_COLOR_TYPE_INDEXED, 4, 1}, Case{SPNG_COLOR_TYPE_INDEXED, 8, 1}}) {
    CAPTURE(int{c.color_type});
    CAPTURE(int{c.depth});
    const int height = 23, width = 37;
    const size_t row_bytes = (static_cast<size_t>(width) * c.channels * c.depth + 7) / 8;
    // Packed samples of any value: palette indices past the short PLTE included.
    const Bytes samples = testing::Pattern(height, static_cast<int>(row_bytes), 1, c.depth);
    const Bytes png = testing::EncodePng(
        samples.data(), samples.size(), height, width, c.color_type, c.depth,
        c.color_type == SPNG_COLOR_TYPE_INDEXED ? short_palette : std::vector<spng_plte_entry>{});
    CHECK(DecodePngRowByRow(png) == DecodePngBytes(png));
  }
}

TEST_CASE("a truncated PNG decoded row by row is corrupt data naming the file") {
  const Bytes rgb = testing::Pattern(40, 40);
  const Bytes png =
      testing::EncodePng(rgb.data(), rgb.size(), 40, 40, SPNG_COLOR_TYPE_TRUECOLOR, 8);
  const Bytes cut(png.begin(), png.begin() + static_cast<long>(png.size() * 2 / 3));
  const DecodePlan plan = PlanPng(cut, "cut.png");
  int rows = 0;
  try {
    DecodePngRows(cut, plan, "cut.png", [&](std::span<const uint8_t>) { ++rows; });
    FAIL("a truncated PNG decoded without error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kCorrupt);
    CHECK(std::string(e.what()).find("cut.png") != std::string::npos);
  }
  CHECK(rows < 40);
}

TEST_CASE("an interlaced PNG is decoded whole: its rows do not come in order") {
  const Bytes rgb = testing::Pattern(21, 17);
  const Bytes png = testing::EncodePng(rgb.data(), rgb.size(), 21, 17, SPNG_COLOR_TYPE_TRUECOLOR, 8,
                                       {}, /*interlaced=*/true);
  const DecodePlan plan = PlanPng(png, "i.png");
  CHECK_FALSE(plan.rows_in_order);
  CHECK(DecodePngBytes(png) == rgb);
  CHECK_THROWS_AS(DecodePngRows(png, plan, "i.png", [](std::span<const uint8_t>) {}), Error);
}

// `png` with a chunk of `type` holding `data` inserted after IHDR.
Bytes WithChunk(const Bytes& png, const char* type, const Bytes& data) {
  Bytes chunk(4);
  const uint32_t length = static_cast<uint32_t>(data.size());
  for (int i = 0; i < 4; ++i) chunk[i] = static_cast<uint8_t>(length >> (24 - 8 * i));
  chunk.insert(chunk.end(), type, type + 4);
  chunk.insert(chunk.end(), data.begin(), data.end());
  const uLong crc =
      crc32(crc32(0, nullptr, 0), chunk.data() + 4, static_cast<uInt>(4 + data.size()));
  for (int i = 0; i < 4; ++i) chunk.push_back(static_cast<uint8_t>(crc >> (24 - 8 * i)));
  Bytes out = png;
  out.insert(out.begin() + 33, chunk.begin(), chunk.end());  // after the signature and IHDR
  return out;
}

TEST_CASE("the plan's scratch counts the rows and the metadata libspng keeps, not the height") {
  const Bytes rgb = testing::Pattern(64, 100);
  const Bytes png =
      testing::EncodePng(rgb.data(), rgb.size(), 64, 100, SPNG_COLOR_TYPE_TRUECOLOR, 8);
  const int64_t plain = PlanPng(png, "p.png").scratch_bytes;
  CHECK(plain >= 4 * 100 * 8);
  CHECK(plain < (1 << 20));
  Bytes text(300000, 'x');
  std::memcpy(text.data(), "Comment", 8);  // keyword, NUL, then the text
  const Bytes with_text = WithChunk(png, "tEXt", text);
  CHECK(DecodePngBytes(with_text) == rgb);
  CHECK(PlanPng(with_text, "t.png").scratch_bytes >= plain + 300000);
  // A compressed chunk may inflate a thousandfold: 2 KiB of zTXt counts as megabytes.
  Bytes ztxt(2048, 0);
  std::memcpy(ztxt.data(), "Comment", 8);
  CHECK(PlanPng(WithChunk(png, "zTXt", ztxt), "z.png").scratch_bytes >= plain + 2000 * 1032);
}

TEST_CASE("metadata that inflates past libspng's chunk limits is called a bomb, not damage") {
  const Bytes rgb = testing::Pattern(8, 8);
  const Bytes png = testing::EncodePng(rgb.data(), rgb.size(), 8, 8, SPNG_COLOR_TYPE_TRUECOLOR, 8);
  const Bytes text((kMaxSpngChunkBytes) + (1 << 20), 'x');  // 65 MiB of text
  uLongf packed_size = compressBound(static_cast<uLong>(text.size()));
  Bytes packed(packed_size);
  REQUIRE(compress2(packed.data(), &packed_size, text.data(), static_cast<uLong>(text.size()), 9) ==
          Z_OK);
  Bytes ztxt = {'C', 'o', 'm', 'm', 'e', 'n', 't', 0, 0};  // keyword, NUL, method 0 (zlib)
  ztxt.insert(ztxt.end(), packed.begin(), packed.begin() + static_cast<ptrdiff_t>(packed_size));
  try {
    DecodePngBytes(WithChunk(png, "zTXt", ztxt));
    FAIL("a 65 MiB zTXt chunk decoded");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kCorrupt);
    const std::string what = e.what();
    CHECK(what.find("decompression bomb") != std::string::npos);
    CHECK(what.find("damaged or truncated") == std::string::npos);
  }
}

}  // namespace
}  // namespace h5feed::converters::image
