#include "decode/jpeg_region_decoder.h"

#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "test_jpegs.h"

namespace h5feed::decode {
namespace {

using testing::Bytes;
using testing::EncodeTestJpeg;
using testing::PhotoPixels;
using testing::RegionBytes;
using testing::TurboDecode;

struct Sample {
  std::string name;
  Bytes jpeg;
  JpegInfo info;
};

// Sizes that are and are not multiples of the 16-pixel 4:2:0 iMCU, landscape and portrait,
// in every layout a stored JPEG may have.
std::vector<Sample> Samples() {
  struct Layout {
    const char* name;
    int subsampling;
    int flags;
    const char* restart;  // test_jpegs.h
  };
  // With restart markers splitting the MCU rows into segments (h5feed's converter: every 2
  // MCUs, or every MCU; before, every row), a region is decoded from the rows and segments
  // around its box (jpeg_restart_cut.h); every 2 rows, or every 5 MCUs (other writers'
  // intervals, across row ends), it cannot.
  const Layout layouts[] = {{"4:2:0", TJSAMP_420, 0, ""},
                            {"4:4:4", TJSAMP_444, 0, ""},
                            {"4:2:2", TJSAMP_422, 0, ""},
                            {"gray", TJSAMP_GRAY, 0, ""},
                            {"4:2:0 progressive", TJSAMP_420, TJFLAG_PROGRESSIVE, ""},
                            {"4:2:0 restart rows", TJSAMP_420, 0, "1"},
                            {"4:4:4 restart rows", TJSAMP_444, 0, "1"},
                            {"4:2:2 restart rows", TJSAMP_422, 0, "1"},
                            {"gray restart rows", TJSAMP_GRAY, 0, "1"},
                            {"4:2:0 restart every 2 rows", TJSAMP_420, 0, "2"},
                            {"4:2:0 restart every 5 MCUs", TJSAMP_420, 0, "5B"},
                            {"4:2:0 restart every 2 MCUs", TJSAMP_420, 0, "2B"},
                            {"4:2:0 restart every MCU", TJSAMP_420, 0, "1B"},
                            {"4:2:2 restart every MCU", TJSAMP_422, 0, "1B"},
                            {"gray restart every MCU", TJSAMP_GRAY, 0, "1B"}};
  const int sizes[][2] = {{375, 500}, {500, 375}, {37, 53}, {129, 200}, {64, 48}};
  std::vector<Sample> samples;
  uint32_t seed = 1;
  for (const Layout& layout : layouts) {
    for (const auto& size : sizes) {
      const int channels = layout.subsampling == TJSAMP_GRAY ? 1 : 3;
      const Bytes pixels = PhotoPixels(size[0], size[1], channels, seed++);
      samples.push_back(
          {std::string(layout.name) + " " + std::to_string(size[0]) + "x" + std::to_string(size[1]),
           EncodeTestJpeg(pixels, size[0], size[1], layout.subsampling, 90, layout.flags, -1,
                          layout.restart),
           JpegInfo{size[0], size[1], channels}});
    }
  }
  return samples;
}

// Boxes inside a height x width image: random ones, and ones touching every edge.
std::vector<PixelBox> Boxes(int64_t height, int64_t width, uint32_t seed) {
  std::vector<PixelBox> boxes = {{0, 0, height, width},
                                 {0, 0, 1, 1},
                                 {height - 1, width - 1, 1, 1},
                                 {0, width - 1, height, 1},
                                 {height - 1, 0, 1, width},
                                 {height / 3, width / 3, height - height / 3, width - width / 3}};
  std::mt19937 random(seed);
  for (int i = 0; i < 40; ++i) {
    const int64_t h = std::uniform_int_distribution<int64_t>(1, height)(random);
    const int64_t w = std::uniform_int_distribution<int64_t>(1, width)(random);
    const int64_t top = std::uniform_int_distribution<int64_t>(0, height - h)(random);
    const int64_t left = std::uniform_int_distribution<int64_t>(0, width - w)(random);
    boxes.push_back({top, left, h, w});
  }
  return boxes;
}

// Whether the region's pixels equal the same pixels of `whole`; names the first difference.
void CheckSamePixels(const Bytes& region, const DecodedRegion& r, const testing::Reference& whole,
                     const std::string& what) {
  REQUIRE(r.top + r.height <= whole.height);
  REQUIRE(r.left + r.width <= whole.width);
  REQUIRE(region.size() >= static_cast<size_t>(r.height * r.width * r.channels));
  for (int64_t y = 0; y < r.height; ++y) {
    const uint8_t* got = region.data() + y * r.width * r.channels;
    const uint8_t* want = whole.pixels.data() + ((r.top + y) * whole.width + r.left) * r.channels;
    if (std::memcmp(got, want, static_cast<size_t>(r.width * r.channels)) != 0) {
      int64_t x = 0;
      while (got[x] == want[x]) ++x;
      FAIL(what << ": differs at row " << r.top + y << ", column " << r.left + x / r.channels
                << " (" << int{got[x]} << " vs " << int{want[x]} << ")");
    }
  }
}

// The region covers box/s: floor of the start, ceiling of the end.
void CheckCovers(const DecodedRegion& r, const PixelBox& box) {
  const int s = r.scale;
  CHECK(r.top == box.top / s);
  CHECK(r.left == box.left / s);
  CHECK(r.top + r.height == (box.top + box.height + s - 1) / s);
  CHECK(r.left + r.width == (box.left + box.width + s - 1) / s);
}

std::string Describe(const Sample& sample, const PixelBox& box, int scale) {
  return sample.name + " box " + std::to_string(box.height) + "x" + std::to_string(box.width) +
         " at (" + std::to_string(box.top) + ", " + std::to_string(box.left) + ") scale 1/" +
         std::to_string(scale);
}

TEST_CASE("a region at full scale equals the same pixels of a whole-image decode") {
  JpegRegionDecoder decoder;
  Bytes region;
  uint32_t seed = 7;
  for (const Sample& sample : Samples()) {
    const testing::Reference whole = TurboDecode(sample.jpeg, sample.info.channels);
    for (const PixelBox& box : Boxes(sample.info.height, sample.info.width, seed++)) {
      const DecodedRegion r = decoder.Decode(sample.jpeg, sample.info, box, 0, 0, region,
                                             RegionOptions{.scale = false, .crop = true});
      REQUIRE(r.scale == 1);
      CHECK(r.channels == sample.info.channels);
      CheckCovers(r, box);
      CheckSamePixels(region, r, whole, Describe(sample, box, 1));
    }
  }
}

TEST_CASE("a region at scale 1/s equals the same pixels of a whole-image decode at 1/s") {
  JpegRegionDecoder decoder;
  Bytes region;
  uint32_t seed = 70;
  for (const Sample& sample : Samples()) {
    for (int scale : {2, 4, 8}) {
      const testing::Reference whole = TurboDecode(sample.jpeg, sample.info.channels, scale);
      for (const PixelBox& box : Boxes(sample.info.height, sample.info.width, seed++)) {
        if (box.height < scale || box.width < scale) continue;
        // Minimums that allow exactly this scale: 1/s keeps them, 1/(2s) would not.
        const int64_t min_height = box.height / scale;
        const int64_t min_width = box.width / scale;
        const DecodedRegion r =
            decoder.Decode(sample.jpeg, sample.info, box, min_height, min_width, region);
        if (r.scale != scale) continue;  // a coarser one was allowed too; covered below
        CheckCovers(r, box);
        CheckSamePixels(region, r, whole, Describe(sample, box, scale));
      }
    }
  }
}

TEST_CASE("the scale chosen is the coarsest at which the box keeps the minimum size") {
  const Bytes pixels = PhotoPixels(375, 500, 3, 3);
  const Bytes jpeg = EncodeTestJpeg(pixels, 375, 500, TJSAMP_420);
  const JpegInfo info{375, 500, 3};
  const PixelBox box{10, 20, 200, 160};
  JpegRegionDecoder decoder;
  Bytes region;
  CHECK(decoder.Decode(jpeg, info, box, 25, 20, region).scale == 8);
  CHECK(decoder.Decode(jpeg, info, box, 0, 0, region).scale == 8);
  CHECK(decoder.Decode(jpeg, info, box, 26, 20, region).scale == 4);
  CHECK(decoder.Decode(jpeg, info, box, 50, 40, region).scale == 4);
  CHECK(decoder.Decode(jpeg, info, box, 100, 41, region).scale == 2);
  CHECK(decoder.Decode(jpeg, info, box, 101, 20, region).scale == 1);
  CHECK(decoder.Decode(jpeg, info, box, 224, 224, region).scale == 1);
  CHECK(decoder.Decode(jpeg, info, box, 0, 0, region, RegionOptions{.scale = false}).scale == 1);
}

TEST_CASE("with crop off the whole image is delivered at the chosen scale") {
  const Bytes pixels = PhotoPixels(129, 200, 3, 4);
  const Bytes jpeg = EncodeTestJpeg(pixels, 129, 200, TJSAMP_420);
  const JpegInfo info{129, 200, 3};
  JpegRegionDecoder decoder;
  Bytes region;
  for (int scale : {1, 2}) {
    const PixelBox box{30, 40, 50, 60};
    const DecodedRegion r = decoder.Decode(jpeg, info, box, 50 / scale, 60 / scale, region,
                                           RegionOptions{.scale = true, .crop = false});
    REQUIRE(r.scale == scale);
    const testing::Reference whole = TurboDecode(jpeg, 3, scale);
    CHECK(r.top == 0);
    CHECK(r.left == 0);
    CHECK(r.height == whole.height);
    CHECK(r.width == whole.width);
    CHECK(RegionBytes(region, r.height, r.width, 3) == whole.pixels);
  }
}

TEST_CASE("a whole-image decode equals TurboJPEG's accurate decode with PIL's settings") {
  JpegRegionDecoder decoder;
  Bytes region;
  for (const Sample& sample : Samples()) {
    const DecodedRegion r =
        decoder.Decode(sample.jpeg, sample.info, {0, 0, sample.info.height, sample.info.width}, 0,
                       0, region, RegionOptions{.scale = false, .crop = false});
    CHECK(r.height == sample.info.height);
    CHECK(r.width == sample.info.width);
    CHECK_MESSAGE(RegionBytes(region, r.height, r.width, r.channels) ==
                      TurboDecode(sample.jpeg, sample.info.channels).pixels,
                  sample.name);
  }
}

// A decode that must fail with kCorrupt, then a good image that must still decode.
void CheckCorruptThenRecovers(JpegRegionDecoder& decoder, std::span<const uint8_t> bad,
                              const JpegInfo& expected, const PixelBox& box) {
  Bytes region;
  try {
    decoder.Decode(bad, expected, box, 0, 0, region);
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kCorrupt);
    CHECK(std::string(error.what()).starts_with("JPEG: "));
  }
  const Bytes pixels = PhotoPixels(64, 48, 3, 9);
  const Bytes good = EncodeTestJpeg(pixels, 64, 48, TJSAMP_420);
  const DecodedRegion r = decoder.Decode(good, {64, 48, 3}, {0, 0, 64, 48}, 64, 48, region);
  CHECK(RegionBytes(region, r.height, r.width, 3) == TurboDecode(good, 3).pixels);
  CHECK(r.height == 64);
}

TEST_CASE("a header that differs from the file's table is corrupt data") {
  const Bytes pixels = PhotoPixels(129, 200, 3, 5);
  const Bytes jpeg = EncodeTestJpeg(pixels, 129, 200, TJSAMP_420);
  JpegRegionDecoder decoder;
  CheckCorruptThenRecovers(decoder, jpeg, {128, 200, 3}, {0, 0, 10, 10});
  CheckCorruptThenRecovers(decoder, jpeg, {129, 201, 3}, {0, 0, 10, 10});
  CheckCorruptThenRecovers(decoder, jpeg, {129, 200, 1}, {0, 0, 10, 10});
}

// The JPEG with its frame header (SOF0) claiming height x width.
Bytes WithClaimedSize(Bytes jpeg, int height, int width) {
  for (size_t i = 0; i + 8 < jpeg.size(); ++i) {
    if (jpeg[i] == 0xFF && jpeg[i + 1] == 0xC0) {
      jpeg[i + 5] = static_cast<uint8_t>(height >> 8);
      jpeg[i + 6] = static_cast<uint8_t>(height);
      jpeg[i + 7] = static_cast<uint8_t>(width >> 8);
      jpeg[i + 8] = static_cast<uint8_t>(width);
      return jpeg;
    }
  }
  throw std::runtime_error("no SOF0 marker");
}

TEST_CASE("a header claiming 65535x65535 is refused before anything is allocated") {
  const Bytes pixels = PhotoPixels(64, 48, 3, 6);
  const Bytes huge = WithClaimedSize(EncodeTestJpeg(pixels, 64, 48, TJSAMP_420), 65535, 65535);
  JpegRegionDecoder decoder;
  CheckCorruptThenRecovers(decoder, huge, {64, 48, 3}, {0, 0, 64, 48});
  // Even a table agreeing with it: libjpeg refuses sides over 65500 while reading the header.
  CheckCorruptThenRecovers(decoder, huge, {65535, 65535, 3}, {0, 0, 64, 48});
  // With a marker after every MCU, a box at the bottom right: the cut looks for millions of
  // segments' markers in 2 KB of data and leaves the JPEG whole.
  const Bytes marked =
      WithClaimedSize(EncodeTestJpeg(pixels, 64, 48, TJSAMP_420, 90, 0, -1, "1B"), 65535, 65535);
  CheckCorruptThenRecovers(decoder, marked, {65535, 65535, 3}, {65000, 65000, 10, 10});
}

TEST_CASE("truncated data is corrupt, never gray padding") {
  const Bytes pixels = PhotoPixels(129, 200, 3, 8);
  const Bytes jpeg = EncodeTestJpeg(pixels, 129, 200, TJSAMP_420);
  JpegRegionDecoder decoder;
  for (size_t keep : {size_t{0}, size_t{2}, size_t{20}, jpeg.size() / 2, jpeg.size() - 40}) {
    const std::span<const uint8_t> cut(jpeg.data(), keep);
    CheckCorruptThenRecovers(decoder, cut, {129, 200, 3}, {0, 0, 129, 200});
  }
}

TEST_CASE("restart markers out of sequence, missing or cut off are corrupt data") {
  // Markers every 5 MCUs, as other writers place them: each is checked.
  const Bytes pixels = PhotoPixels(129, 200, 3, 9);
  const Bytes jpeg = EncodeTestJpeg(pixels, 129, 200, TJSAMP_420, 90, 0, -1, "5B");
  size_t third = 0;
  for (size_t at = 0, seen = 0; at + 1 < jpeg.size() && third == 0; ++at) {
    if (jpeg[at] == 0xFF && jpeg[at + 1] >= 0xD0 && jpeg[at + 1] <= 0xD7 && ++seen == 3) third = at;
  }
  REQUIRE(third > 0);
  JpegRegionDecoder decoder;
  Bytes renumbered = jpeg;
  renumbered[third + 1] = 0xD6;
  CheckCorruptThenRecovers(decoder, renumbered, {129, 200, 3}, {0, 0, 129, 200});
  Bytes missing = jpeg;
  missing.erase(missing.begin() + static_cast<ptrdiff_t>(third),
                missing.begin() + static_cast<ptrdiff_t>(third) + 2);
  CheckCorruptThenRecovers(decoder, missing, {129, 200, 3}, {0, 0, 129, 200});
  const std::span<const uint8_t> cut(jpeg.data(), third + 1);
  CheckCorruptThenRecovers(decoder, cut, {129, 200, 3}, {0, 0, 129, 200});
}

TEST_CASE("random bytes and a PNG are corrupt data") {
  JpegRegionDecoder decoder;
  std::mt19937 random(11);
  Bytes noise(4096);
  for (uint8_t& byte : noise) byte = static_cast<uint8_t>(random());
  CheckCorruptThenRecovers(decoder, noise, {64, 48, 3}, {0, 0, 64, 48});
  noise[0] = 0xFF;  // a JPEG's start marker, then garbage
  noise[1] = 0xD8;
  CheckCorruptThenRecovers(decoder, noise, {64, 48, 3}, {0, 0, 64, 48});
  const Bytes png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0,  0, 0, 13, 'I', 'H', 'D',
                     'R',  0,   0,   0,   48,   0,    0,    0,    64, 8, 2, 0,  0,   0};
  CheckCorruptThenRecovers(decoder, png, {64, 48, 3}, {0, 0, 64, 48});
}

TEST_CASE("a box outside the image is an invalid argument") {
  const Bytes pixels = PhotoPixels(64, 48, 3, 12);
  const Bytes jpeg = EncodeTestJpeg(pixels, 64, 48, TJSAMP_420);
  JpegRegionDecoder decoder;
  Bytes region;
  for (PixelBox box : {PixelBox{0, 0, 65, 48}, PixelBox{-1, 0, 10, 10}, PixelBox{0, 40, 10, 9},
                       PixelBox{0, 0, 0, 10}}) {
    try {
      decoder.Decode(jpeg, {64, 48, 3}, box, 0, 0, region);
      FAIL("no error");
    } catch (const Error& error) {
      CHECK(error.code() == ErrorCode::kInvalidArgument);
    }
  }
  CHECK(decoder.Decode(jpeg, {64, 48, 3}, {0, 0, 64, 48}, 64, 48, region).height == 64);
}

}  // namespace
}  // namespace h5feed::decode
