#include "decode/jpeg_row_start.h"

#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "decode/jpeg_region_decoder.h"
#include "h5feed/error.h"
#include "test_jpegs.h"

namespace h5feed::decode {
namespace {

using testing::Bytes;
using testing::EncodeTestJpeg;
using testing::PhotoPixels;
using testing::TurboDecode;

struct Case {
  const char* name;
  int subsampling;
  int channels;
  int mcu_height;
  bool chroma_upsampled_vertically;
};

const Case kCases[] = {{"4:2:0", TJSAMP_420, 3, 16, true},
                       {"4:4:4", TJSAMP_444, 3, 8, false},
                       {"4:2:2", TJSAMP_422, 3, 8, false},
                       {"gray", TJSAMP_GRAY, 1, 8, false}};

// The restart markers of a JPEG's entropy-coded data, in order (0 for RST0 ... 7 for RST7).
std::vector<int> RestartNumbers(const Bytes& jpeg) {
  std::vector<int> numbers;
  for (size_t at = 2; at + 1 < jpeg.size(); ++at) {
    if (jpeg[at] == 0xFF && jpeg[at + 1] >= 0xD0 && jpeg[at + 1] <= 0xD7) {
      numbers.push_back(jpeg[at + 1] - 0xD0);
    }
  }
  return numbers;
}

TEST_CASE("the cut JPEG decodes to the same rows, from the MCU row boundary above the row") {
  for (const Case& c : kCases) {
    for (const std::pair<int, int>& size : {std::pair{375, 500}, {131, 77}}) {
      const int height = size.first;
      const int width = size.second;
      CAPTURE(c.name);
      CAPTURE(height);
      const Bytes jpeg = EncodeTestJpeg(PhotoPixels(height, width, c.channels, 3), height, width,
                                        c.subsampling, 90, 0, -1, "1");
      for (int scale : {1, 2}) {
        const testing::Reference whole = TurboDecode(jpeg, c.channels, scale);
        for (int64_t row : {int64_t{0}, int64_t{c.mcu_height}, int64_t{c.mcu_height} + 1,
                            int64_t{2} * c.mcu_height - 1, int64_t{2} * c.mcu_height,
                            int64_t{height} / 2 + 5, int64_t{height} - 1}) {
          CAPTURE(row);
          Bytes cut;
          const int64_t dropped = CutAboveRow(jpeg, height, width, row, cut);
          // Below `row` where fancy upsampling blends in the chroma row above; else at it.
          const int64_t last_start = c.chroma_upsampled_vertically ? row - 1 : row;
          const int64_t expected = last_start / c.mcu_height * c.mcu_height;
          if (expected <= 0) {
            CHECK(dropped == 0);  // nothing above to leave out
            continue;
          }
          REQUIRE(dropped == expected);
          // Markers from RST0 again, in sequence.
          const std::vector<int> numbers = RestartNumbers(cut);
          for (size_t i = 0; i < numbers.size(); ++i) CHECK(numbers[i] == static_cast<int>(i % 8));
          const testing::Reference part = TurboDecode(cut, c.channels, scale);
          REQUIRE(part.height == (height - dropped + scale - 1) / scale);
          REQUIRE(part.width == whole.width);
          // Every row is the whole image's but the first where chroma is upsampled vertically.
          const int64_t row_bytes = int64_t{whole.width} * c.channels;
          for (int64_t y = c.chroma_upsampled_vertically ? 1 : 0; y < part.height; ++y) {
            const uint8_t* got = part.pixels.data() + y * row_bytes;
            const uint8_t* want = whole.pixels.data() + (y + dropped / scale) * row_bytes;
            if (std::memcmp(got, want, static_cast<size_t>(row_bytes)) != 0) {
              FAIL("row " << y + dropped / scale << " differs at scale 1/" << scale);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("a JPEG that cannot start below its top is left whole") {
  const Bytes pixels = PhotoPixels(200, 160, 3, 4);
  Bytes cut;
  // No restart markers; markers every 2 MCU rows; progressive.
  CHECK(CutAboveRow(EncodeTestJpeg(pixels, 200, 160, TJSAMP_420), 200, 160, 150, cut) == 0);
  CHECK(CutAboveRow(EncodeTestJpeg(pixels, 200, 160, TJSAMP_420, 90, 0, -1, "2"), 200, 160, 150,
                    cut) == 0);
  CHECK(CutAboveRow(EncodeTestJpeg(pixels, 200, 160, TJSAMP_420, 90, TJFLAG_PROGRESSIVE, -1, "1"),
                    200, 160, 150, cut) == 0);
  const Bytes jpeg = EncodeTestJpeg(pixels, 200, 160, TJSAMP_420, 90, 0, -1, "1");
  CHECK(CutAboveRow(jpeg, 200, 160, 150, cut) == 144);
  // A frame of another size than the file's table says; a row outside the image.
  CHECK(CutAboveRow(jpeg, 201, 160, 150, cut) == 0);
  CHECK(CutAboveRow(jpeg, 200, 161, 150, cut) == 0);
  CHECK(CutAboveRow(jpeg, 200, 160, 200, cut) == 0);
  // A marker out of sequence (damage) before the row.
  Bytes damaged = jpeg;
  for (size_t at = 2; at + 1 < damaged.size(); ++at) {
    if (damaged[at] == 0xFF && damaged[at + 1] == 0xD3) {
      damaged[at + 1] = 0xD4;
      break;
    }
  }
  CHECK(CutAboveRow(damaged, 200, 160, 150, cut) == 0);
  // Truncated anywhere: left whole or cut, never a read past the end (ASan).
  for (size_t size = 0; size < jpeg.size(); size += 7) {
    const int64_t dropped = CutAboveRow(std::span(jpeg).first(size), 200, 160, 150, cut);
    CHECK((dropped == 0 || dropped == 144));
  }
}

TEST_CASE("a region below damaged rows decodes: the rows above were never entropy-decoded") {
  const Bytes pixels = PhotoPixels(256, 192, 3, 5);
  const Bytes jpeg = EncodeTestJpeg(pixels, 256, 192, TJSAMP_420, 90, 0, -1, "1");
  // Garbage in the first MCU row's entropy-coded data (between the scan header and RST0).
  Bytes damaged = jpeg;
  size_t data = 0;
  for (size_t at = 2; at + 3 < damaged.size(); ++at) {
    if (damaged[at] == 0xFF && damaged[at + 1] == 0xDA) {
      data = at + 2 + (damaged[at + 2] << 8 | damaged[at + 3]);
      break;
    }
  }
  REQUIRE(data > 0);
  for (size_t at = data + 4; at < data + 40; ++at) damaged[at] = 0x5A;
  JpegRegionDecoder decoder;
  Bytes region;
  const JpegInfo info{256, 192, 3};
  const testing::Reference whole = TurboDecode(jpeg, 3);
  const DecodedRegion r = decoder.Decode(damaged, info, PixelBox{200, 40, 50, 100}, 0, 0, region,
                                         RegionOptions{.scale = false, .crop = true});
  CHECK(r.top == 200);
  const int64_t row_bytes = r.width * 3;
  for (int64_t y = 0; y < r.height; ++y) {
    CHECK(std::memcmp(region.data() + y * row_bytes,
                      whole.pixels.data() + ((r.top + y) * 192 + r.left) * 3,
                      static_cast<size_t>(row_bytes)) == 0);
  }
  // A box reaching the damaged rows reads them, and says the data is corrupt.
  CHECK_THROWS_AS(decoder.Decode(damaged, info, PixelBox{0, 0, 50, 100}, 0, 0, region), Error);
}

}  // namespace
}  // namespace h5feed::decode
