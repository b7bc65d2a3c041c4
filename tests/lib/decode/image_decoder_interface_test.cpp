#include "decode/image_decoder.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "decode/jpeg_image_decoder.h"
#include "decode/jpeg_region_decoder.h"
#include "decode/raw_image_decoder.h"
#include "h5feed/error.h"
#include "support/caught_error.h"
#include "test_jpegs.h"

namespace h5feed::decode {
namespace {

using h5feed::testing::CodeOf;
using testing::Bytes;
using testing::EncodeTestJpeg;
using testing::PhotoPixels;
using testing::RegionBytes;
using testing::TurboDecode;

TEST_CASE("raw pixels are delivered in place, whole, whatever the box") {
  const ImageShape shape{37, 53, 3};
  const Bytes stored = PhotoPixels(37, 53, 3, 1);
  const ImageDecoder& raw = RawImageDecoder();
  CHECK(raw.encoding() == ImageEncoding::kRaw);
  DecodeScratch scratch;
  for (const CropNeeds& needs : {CropNeeds::Whole(shape), CropNeeds{{5, 7, 10, 20}, 2, 3},
                                 CropNeeds{{36, 52, 1, 1}, 1, 1}}) {
    const DecodedImage decoded = raw.Decode(stored, shape, needs, scratch);
    CHECK(decoded.pixels == stored.data());  // no copy
    CHECK(decoded.region.scale == 1);
    CHECK(decoded.region.top == 0);
    CHECK(decoded.region.left == 0);
    CHECK(decoded.region.height == 37);
    CHECK(decoded.region.width == 53);
    CHECK(decoded.region.channels == 3);
  }
  CHECK(scratch.pixels().empty());  // nothing written
}

TEST_CASE("raw pixels of the wrong size are corrupt, a box outside the image a caller's error") {
  const ImageShape shape{4, 5, 1};
  const ImageDecoder& raw = RawImageDecoder();
  DecodeScratch scratch;
  const Bytes short_by_one(19);
  CHECK(CodeOf([&] { raw.Decode(short_by_one, shape, CropNeeds::Whole(shape), scratch); }) ==
        ErrorCode::kCorrupt);
  const Bytes good(20);
  CHECK(CodeOf([&] {
          raw.Decode(good, shape, CropNeeds{{2, 0, 3, 5}, 1, 1}, scratch);
        }) == ErrorCode::kInvalidArgument);
  CHECK(raw.StoredSizeFits(shape, 20));
  CHECK_FALSE(raw.StoredSizeFits(shape, 19));
  CHECK_FALSE(raw.StoredSizeFits(shape, 21));

  const ImageCheck ok = raw.Check(good, shape, scratch);
  CHECK_FALSE(ok.decoded);
  CHECK(ok.problem.empty());
  const ImageCheck bad = raw.Check(short_by_one, shape, scratch);
  CHECK_FALSE(bad.decoded);
  CHECK(bad.problem.find("19 bytes") != std::string::npos);
  CHECK(raw.checked().empty());
}

TEST_CASE("a JPEG is decoded where the crop reads, as JpegRegionDecoder decodes it") {
  const ImageShape shape{375, 500, 3};
  const Bytes jpeg = EncodeTestJpeg(PhotoPixels(375, 500, 3, 2), 375, 500, TJSAMP_420);
  const ImageDecoder& decoder = JpegImageDecoder();
  CHECK(decoder.encoding() == ImageEncoding::kJpeg);
  DecodeScratch scratch;
  JpegRegionDecoder direct;
  for (const CropNeeds& needs :
       {CropNeeds::Whole(shape), CropNeeds{{100, 130, 200, 240}, 50, 60},
        CropNeeds{{10, 20, 300, 400}, 224, 224}, CropNeeds{{0, 0, 375, 500}, 40, 40}}) {
    CAPTURE(needs.box.top);
    CAPTURE(needs.min_height);
    const DecodedImage decoded = decoder.Decode(jpeg, shape, needs, scratch);
    std::vector<uint8_t> expected;
    const DecodedRegion region =
        direct.Decode(jpeg, {375, 500, 3}, needs.box, needs.min_height, needs.min_width, expected);
    CHECK(decoded.pixels == scratch.pixels().data());
    CHECK(decoded.region.scale == region.scale);
    CHECK(decoded.region.top == region.top);
    CHECK(decoded.region.left == region.left);
    CHECK(decoded.region.height == region.height);
    CHECK(decoded.region.width == region.width);
    CHECK(decoded.region.channels == 3);
    CHECK(RegionBytes(scratch.pixels(), region.height, region.width, 3) ==
          RegionBytes(expected, region.height, region.width, 3));
  }
}

TEST_CASE("a JPEG decoded without region decoding is the whole image at full scale") {
  const ImageShape shape{129, 200, 3};
  const Bytes jpeg = EncodeTestJpeg(PhotoPixels(129, 200, 3, 3), 129, 200, TJSAMP_420);
  DecodeScratch scratch;
  const DecodedImage decoded = JpegImageDecoder().Decode(
      jpeg, shape, CropNeeds{{30, 40, 60, 80}, 8, 8}, scratch, DecodeOptions{false});
  CHECK(decoded.region.scale == 1);
  CHECK(decoded.region.top == 0);
  CHECK(decoded.region.left == 0);
  CHECK(decoded.region.height == 129);
  CHECK(decoded.region.width == 200);
  const std::vector<uint8_t> pixels(decoded.pixels, decoded.pixels + 129 * 200 * 3);
  CHECK(pixels == TurboDecode(jpeg, 3).pixels);
}

TEST_CASE("a JPEG whose header lies or whose data is cut is corrupt, and verify says why") {
  const ImageShape shape{64, 80, 3};
  Bytes jpeg = EncodeTestJpeg(PhotoPixels(64, 80, 3, 4), 64, 80, TJSAMP_420);
  const ImageDecoder& decoder = JpegImageDecoder();
  DecodeScratch scratch;
  const ImageShape lying{64, 81, 3};
  CHECK(CodeOf([&] { decoder.Decode(jpeg, lying, CropNeeds::Whole(lying), scratch); }) ==
        ErrorCode::kCorrupt);
  CHECK(decoder.StoredSizeFits(shape, 1));
  CHECK_FALSE(decoder.StoredSizeFits(shape, 0));

  const ImageCheck good = decoder.Check(jpeg, shape, scratch);
  CHECK(good.decoded);
  CHECK(good.problem.empty());
  const ImageCheck header = decoder.Check(jpeg, lying, scratch);
  CHECK(header.decoded);
  CHECK(header.problem.find("the header says 64x80x3") != std::string::npos);
  jpeg.resize(jpeg.size() / 2);
  const ImageCheck cut = decoder.Check(jpeg, shape, scratch);
  CHECK(cut.decoded);
  CHECK_FALSE(cut.problem.empty());
  CHECK_FALSE(decoder.checked().empty());
}

TEST_CASE("one scratch serves raw and JPEG images in turn, as a smart file mixes them") {
  const ImageShape shape{48, 64, 3};
  const Bytes pixels = PhotoPixels(48, 64, 3, 5);
  const Bytes jpeg = EncodeTestJpeg(pixels, 48, 64, TJSAMP_444);
  const std::vector<uint8_t> reference = TurboDecode(jpeg, 3).pixels;
  DecodeScratch scratch;
  for (int i = 0; i < 3; ++i) {
    const DecodedImage raw =
        RawImageDecoder().Decode(pixels, shape, CropNeeds::Whole(shape), scratch);
    CHECK(raw.pixels == pixels.data());
    const DecodedImage decoded =
        JpegImageDecoder().Decode(jpeg, shape, CropNeeds::Whole(shape), scratch);
    CHECK(std::vector<uint8_t>(decoded.pixels, decoded.pixels + shape.bytes()) == reference);
  }
}

}  // namespace
}  // namespace h5feed::decode
