#include "decode/jpeg_restart_cut.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
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
  int mcu_height, mcu_width;
  bool chroma_upsampled_vertically, chroma_upsampled_horizontally;
};

const Case kCases[] = {{"4:2:0", TJSAMP_420, 3, 16, 16, true, true},
                       {"4:4:4", TJSAMP_444, 3, 8, 8, false, false},
                       {"4:2:2", TJSAMP_422, 3, 8, 16, false, true},
                       {"gray", TJSAMP_GRAY, 1, 8, 8, false, false}};

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

// The pixels [begin, end) of an axis of `extent` that the cut keeps for pixels [first, last],
// in whole units of `unit` pixels: one pixel more on each side where chroma is upsampled along
// it.
struct Kept {
  int64_t begin = 0, end = 0;
};

Kept KeptAround(int64_t first, int64_t last, int64_t extent, int64_t unit, bool margin) {
  if (margin) {
    first = std::max<int64_t>(first - 1, 0);
    last = std::min(last + 1, extent - 1);
  }
  return {first / unit * unit, std::min(extent, (last / unit + 1) * unit)};
}

TEST_CASE("the cut JPEG decodes the box's pixels as the whole JPEG does") {
  // Restart markers after every MCU row, every MCU, and every 2 MCUs (a segment of 2 MCUs
  // divides the rows of the 500-wide images; at 77 wide, 4:2:0 and 4:2:2 rows have 5 MCUs:
  // not cut).
  for (const char* restart : {"1", "1B", "2B"}) {
    for (const Case& c : kCases) {
      for (const std::pair<int, int>& size : {std::pair{375, 500}, {131, 77}}) {
        const int height = size.first;
        const int width = size.second;
        CAPTURE(restart);
        CAPTURE(c.name);
        CAPTURE(height);
        const Bytes jpeg = EncodeTestJpeg(PhotoPixels(height, width, c.channels, 3), height, width,
                                          c.subsampling, 90, 0, -1, restart);
        const int64_t mcus = (width + c.mcu_width - 1) / c.mcu_width;
        const int64_t interval = std::string(restart) == "1" ? mcus : restart[0] - '0';
        const bool cuttable = mcus % interval == 0;
        const testing::Reference whole = TurboDecode(jpeg, c.channels);
        const PixelBox boxes[] = {{0, 0, 1, 1},
                                  {c.mcu_height, c.mcu_width, 5, 5},
                                  {c.mcu_height + 1, c.mcu_width + 1, 30, 20},
                                  {height / 2 + 5, width / 3, height / 2 - 5, width / 3},
                                  {height - 1, width - 1, 1, 1},
                                  {0, 0, height, width}};
        for (const PixelBox& box : boxes) {
          CAPTURE(box.top);
          CAPTURE(box.left);
          Bytes cut;
          const std::optional<PixelBox> part = CutAroundBox(jpeg, height, width, box, cut);
          const Kept rows = KeptAround(box.top, box.top + box.height - 1, height, c.mcu_height,
                                       c.chroma_upsampled_vertically);
          const int64_t segment = std::string(restart) == "1" ? width : interval * c.mcu_width;
          Kept columns = KeptAround(box.left, box.left + box.width - 1, width, segment,
                                    c.chroma_upsampled_horizontally);
          // Wider than 16 pixels where chroma is upsampled (fancy upsampling needs 3 samples).
          while (c.chroma_upsampled_horizontally && columns.end - columns.begin <= 16 &&
                 columns.end - columns.begin < width) {
            if (columns.begin > 0) {
              columns.begin -= segment;
            } else {
              columns.end = std::min<int64_t>(width, columns.end + segment);
            }
          }
          if (!cuttable || (rows.begin == 0 && rows.end == height && columns.begin == 0 &&
                            columns.end == width)) {
            CHECK(!part);  // not such a file, or nothing to leave out
            continue;
          }
          REQUIRE(part);
          CHECK(part->top == rows.begin);
          CHECK(part->top + part->height == rows.end);
          CHECK(part->left == columns.begin);
          CHECK(part->left + part->width == columns.end);
          // Markers from RST0 again, in sequence.
          const std::vector<int> numbers = RestartNumbers(cut);
          for (size_t i = 0; i < numbers.size(); ++i) CHECK(numbers[i] == static_cast<int>(i % 8));
          const testing::Reference decoded = TurboDecode(cut, c.channels);
          REQUIRE(decoded.height == part->height);
          REQUIRE(decoded.width == part->width);
          for (int64_t y = box.top; y < box.top + box.height; ++y) {
            const uint8_t* got =
                decoded.pixels.data() +
                ((y - part->top) * decoded.width + (box.left - part->left)) * c.channels;
            const uint8_t* want = whole.pixels.data() + (y * width + box.left) * c.channels;
            if (std::memcmp(got, want, static_cast<size_t>(box.width * c.channels)) != 0) {
              FAIL(std::string(restart)
                   << " " << std::string(c.name) << " " << height << "x" << width << " box "
                   << box.top << "," << box.left << " " << box.height << "x" << box.width
                   << " part " << part->top << "," << part->left << " " << part->height << "x"
                   << part->width << ": row " << y << " differs");
            }
          }
        }
      }
    }
  }
}

TEST_CASE("a JPEG that cannot be cut is left whole") {
  const Bytes pixels = PhotoPixels(200, 160, 3, 4);
  Bytes cut;
  const PixelBox box{150, 40, 20, 30};
  // No restart markers; markers every 2 MCU rows; every 3 MCUs (rows of 10); progressive.
  CHECK(!CutAroundBox(EncodeTestJpeg(pixels, 200, 160, TJSAMP_420), 200, 160, box, cut));
  CHECK(!CutAroundBox(EncodeTestJpeg(pixels, 200, 160, TJSAMP_420, 90, 0, -1, "2"), 200, 160, box,
                      cut));
  CHECK(!CutAroundBox(EncodeTestJpeg(pixels, 200, 160, TJSAMP_420, 90, 0, -1, "3B"), 200, 160, box,
                      cut));
  CHECK(!CutAroundBox(EncodeTestJpeg(pixels, 200, 160, TJSAMP_420, 90, TJFLAG_PROGRESSIVE, -1, "1"),
                      200, 160, box, cut));
  const Bytes jpeg = EncodeTestJpeg(pixels, 200, 160, TJSAMP_420, 90, 0, -1, "2B");
  const std::optional<PixelBox> part = CutAroundBox(jpeg, 200, 160, box, cut);
  REQUIRE(part);
  CHECK(part->top == 144);
  CHECK(part->left == 32);
  // A frame of another size than the file's table says; a box outside the image or empty.
  CHECK(!CutAroundBox(jpeg, 201, 160, box, cut));
  CHECK(!CutAroundBox(jpeg, 200, 161, box, cut));
  CHECK(!CutAroundBox(jpeg, 200, 160, PixelBox{190, 40, 20, 30}, cut));
  CHECK(!CutAroundBox(jpeg, 200, 160, PixelBox{150, 40, 0, 30}, cut));
  // A marker out of sequence (damage) before the part's end.
  Bytes damaged = jpeg;
  for (size_t at = 2; at + 1 < damaged.size(); ++at) {
    if (damaged[at] == 0xFF && damaged[at + 1] == 0xD3) {
      damaged[at + 1] = 0xD4;
      break;
    }
  }
  CHECK(!CutAroundBox(damaged, 200, 160, box, cut));
  // Truncated anywhere: left whole or cut, never a read past the end (ASan).
  for (size_t size = 0; size < jpeg.size(); size += 7) {
    const std::optional<PixelBox> truncated =
        CutAroundBox(std::span(jpeg).first(size), 200, 160, box, cut);
    CHECK((!truncated || (truncated->top == 144 && truncated->left == 32)));
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
