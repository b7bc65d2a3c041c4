#include "image/opencv_decoder.h"

#include <doctest/doctest.h>

#include <string>

#include "h5feed/error.h"
#include "test_images.h"

namespace h5feed::converters::image {
namespace {

using testing::Bytes;

Bytes DecodeOpenCvBytes(const Bytes& encoded) {
  const DecodePlan plan = PlanOpenCv(encoded, "t.img");
  Bytes rgb(static_cast<size_t>(plan.bytes()));
  DecodeOpenCv(encoded, plan, "t.img", rgb);
  return rgb;
}

TEST_CASE("BMP, PPM and TIFF decode to exactly their RGB pixels, not BGR") {
  const Bytes rgb = testing::Pattern(13, 29);
  for (const char* ext : {".bmp", ".ppm", ".tiff"}) {
    CAPTURE(ext);
    const Bytes encoded = testing::EncodeOpenCv(ext, rgb, 13, 29);
    CHECK(IsOpenCvFormat(encoded));
    const DecodePlan plan = PlanOpenCv(encoded, "t.img");
    CHECK(plan.format == Format::kOther);
    CHECK(plan.height == 13);
    CHECK(plan.width == 29);
    CHECK(DecodeOpenCvBytes(encoded) == rgb);
  }
}

TEST_CASE("PGM and gray TIFF decode to three equal channels") {
  const Bytes gray = testing::Pattern(7, 10, 1);
  Bytes expected;
  for (uint8_t v : gray) expected.insert(expected.end(), {v, v, v});
  for (const char* ext : {".pgm", ".tiff"}) {
    CAPTURE(ext);
    CHECK(DecodeOpenCvBytes(testing::EncodeOpenCv(ext, gray, 7, 10, 1)) == expected);
  }
}

TEST_CASE("the header reader finds the size of a PNM with comments") {
  const std::string pgm = "P5\n# a comment\n3 # another\n2\n255\n\x01\x02\x03\x04\x05\x06";
  const Bytes bytes(pgm.begin(), pgm.end());
  const DecodePlan plan = PlanOpenCv(bytes, "c.pgm");
  CHECK(plan.height == 2);
  CHECK(plan.width == 3);
  CHECK(DecodeOpenCvBytes(bytes) == Bytes{1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6});
}

TEST_CASE("a big-endian TIFF's size is read from its first IFD") {
  // OpenCV writes little-endian TIFFs; this one is built by hand with SHORT and LONG sizes.
  const Bytes tiff = {'M', 'M', 0, 42, 0, 0, 0, 8,                          // header, IFD at 8
                      0,   2,                                               // two entries
                      1,   0,   0, 3,  0, 0, 0, 1, 0x01, 0x2C, 0,    0,     // ImageWidth SHORT 300
                      1,   1,   0, 4,  0, 0, 0, 1, 0,    0,    0x00, 0xC8,  // ImageLength LONG 200
                      0,   0,   0, 0};
  const DecodePlan plan = PlanOpenCv(tiff, "be.tif");
  CHECK(plan.width == 300);
  CHECK(plan.height == 200);
}

TEST_CASE("a truncated BMP or PPM is refused from its header, before OpenCV reads it") {
  const Bytes rgb = testing::Pattern(40, 40);
  for (const char* ext : {".bmp", ".ppm"}) {
    CAPTURE(ext);
    const Bytes whole = testing::EncodeOpenCv(ext, rgb, 40, 40);
    CHECK_NOTHROW(PlanOpenCv(whole, "whole.img"));
    const Bytes cut(whole.begin(), whole.end() - 1);
    try {
      PlanOpenCv(cut, "cut.img");
      FAIL("a truncated file was planned");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kCorrupt);
      CHECK(std::string(e.what()).find("cut.img") != std::string::npos);
      CHECK(std::string(e.what()).find("truncated") != std::string::npos);
    }
  }
}

TEST_CASE("a truncated TIFF is corrupt data naming the file") {
  const Bytes tiff = testing::EncodeOpenCv(".tiff", testing::Pattern(40, 40), 40, 40);
  const Bytes cut(tiff.begin(), tiff.begin() + static_cast<long>(tiff.size() / 2));
  try {
    const DecodePlan plan = PlanOpenCv(cut, "cut.tif");
    Bytes out(static_cast<size_t>(plan.bytes()));
    DecodeOpenCv(cut, plan, "cut.tif", out);
    FAIL("a truncated TIFF decoded without error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kCorrupt);
    CHECK(std::string(e.what()).find("cut.tif") != std::string::npos);
  }
}

TEST_CASE("other formats are not taken for BMP, PNM or TIFF") {
  CHECK_FALSE(IsOpenCvFormat(Bytes{0xFF, 0xD8, 0xFF}));
  CHECK_FALSE(IsOpenCvFormat(Bytes{'P', '7', '\n'}));
  CHECK_FALSE(IsOpenCvFormat(Bytes{'B'}));
  CHECK_FALSE(IsOpenCvFormat(Bytes{}));
}

}  // namespace
}  // namespace h5feed::converters::image
