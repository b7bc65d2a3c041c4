#include "image/jpeg_decoder.h"

#include <doctest/doctest.h>

#include <string>

#include "h5feed/error.h"
#include "test_images.h"

namespace h5feed::converters::image {
namespace {

using testing::Bytes;

Bytes DecodeJpegBytes(const Bytes& jpeg, int min_height = 0, int min_width = 0) {
  const DecodePlan plan = PlanJpeg(jpeg, "t.jpg", min_height, min_width);
  Bytes rgb(static_cast<size_t>(plan.bytes()));
  DecodeJpeg(jpeg, plan, "t.jpg", rgb);
  return rgb;
}

TEST_CASE("a quality-100 4:4:4 JPEG decodes to within a few levels of its source") {
  const Bytes rgb = testing::Pattern(33, 47);
  const Bytes decoded =
      DecodeJpegBytes(testing::EncodeJpeg(rgb, 33, 47, TJPF_RGB, TJSAMP_444, 100));
  CHECK(testing::MaxAbsDiff(decoded, rgb) <= 8);
}

TEST_CASE("a grayscale JPEG decodes to three equal channels") {
  const Bytes gray = testing::Pattern(16, 24, 1);
  const Bytes decoded = DecodeJpegBytes(testing::EncodeJpeg(gray, 16, 24, TJPF_GRAY));
  REQUIRE(decoded.size() == gray.size() * 3);
  for (size_t i = 0; i < gray.size(); ++i) {
    CHECK(decoded[3 * i] == decoded[3 * i + 1]);
    CHECK(decoded[3 * i] == decoded[3 * i + 2]);
    CHECK(std::abs(int{decoded[3 * i]} - int{gray[i]}) <= 12);
  }
}

TEST_CASE("the DCT scale is the smallest of 1/2, 1/4, 1/8 that keeps the minimum size") {
  const Bytes jpeg = testing::EncodeJpeg(testing::Pattern(300, 400), 300, 400);
  struct Case {
    int min_h, min_w, h, w;
  };
  for (const Case c : {Case{0, 0, 300, 400}, Case{75, 100, 75, 100}, Case{76, 100, 150, 200},
                       Case{75, 101, 150, 200}, Case{38, 50, 38, 50}, Case{1, 1, 38, 50},
                       Case{300, 1, 300, 400}, Case{151, 0, 300, 400}, Case{0, 200, 150, 200}}) {
    CAPTURE(c.min_h);
    CAPTURE(c.min_w);
    const DecodePlan plan = PlanJpeg(jpeg, "t.jpg", c.min_h, c.min_w);
    CHECK(plan.height == c.h);
    CHECK(plan.width == c.w);
    CHECK(plan.full_height == 300);
    CHECK(plan.full_width == 400);
  }
}

TEST_CASE("a reduced-scale decode fills exactly its plan and resembles the image") {
  const Bytes uniform = testing::Uniform(64, 96, 200, 40, 90);
  const Bytes decoded =
      DecodeJpegBytes(testing::EncodeJpeg(uniform, 64, 96, TJPF_RGB, TJSAMP_444, 95), 16, 24);
  REQUIRE(decoded.size() == size_t{16} * 24 * 3);
  CHECK(testing::MaxAbsDiff(decoded, testing::Uniform(16, 24, 200, 40, 90)) <= 3);
}

TEST_CASE("Adobe CMYK is converted as PIL does: stored values are inverted CMYK") {
  // Photoshop (and PIL, and libjpeg via TurboJPEG) store CMYK inverted: stored (0, 255, 255,
  // 255) is full cyan, no magenta, no yellow, no black.
  Bytes cmyk;
  for (int i = 0; i < 16 * 16; ++i) cmyk.insert(cmyk.end(), {0, 255, 255, 255});
  const Bytes decoded =
      DecodeJpegBytes(testing::EncodeJpeg(cmyk, 16, 16, TJPF_CMYK, TJSAMP_444, 100));
  CHECK(testing::MaxAbsDiff(decoded, testing::Uniform(16, 16, 0, 255, 255)) <= 2);

  // Stored K = 128 (PIL's K = 127) with no colour: nk = 128, R = G = B = 128.
  Bytes gray_cmyk;
  for (int i = 0; i < 16 * 16; ++i) gray_cmyk.insert(gray_cmyk.end(), {255, 255, 255, 128});
  const Bytes gray =
      DecodeJpegBytes(testing::EncodeJpeg(gray_cmyk, 16, 16, TJPF_CMYK, TJSAMP_444, 100));
  CHECK(testing::MaxAbsDiff(gray, testing::Uniform(16, 16, 128, 128, 128)) <= 2);
}

TEST_CASE("a truncated JPEG is corrupt data and the message names the file") {
  const Bytes jpeg = testing::EncodeJpeg(testing::Pattern(64, 64), 64, 64);
  for (const Bytes& broken :
       {Bytes(jpeg.begin(), jpeg.begin() + static_cast<long>(jpeg.size() / 2)),
        Bytes(jpeg.begin(), jpeg.end() - 2) /* only the end marker missing */}) {
    const DecodePlan plan = PlanJpeg(broken, "cut.jpg", 0, 0);  // the header is intact
    Bytes rgb(static_cast<size_t>(plan.bytes()));
    try {
      DecodeJpeg(broken, plan, "cut.jpg", rgb);
      FAIL("a truncated JPEG decoded without error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kCorrupt);
      CHECK(std::string(e.what()).find("cut.jpg") != std::string::npos);
    }
  }
}

TEST_CASE("a JPEG whose header breaks off leaves the thread able to decode the next one") {
  // A header error longjmps out of libjpeg mid-header; reusing that state made the next
  // header on the same thread read as 0x0 (seen converting an image folder).
  const Bytes rgb = testing::Pattern(24, 32);
  const Bytes jpeg = testing::EncodeJpeg(rgb, 24, 32);
  const Bytes gray =
      testing::EncodeJpeg(testing::Pattern(24, 32, 1), 24, 32, TJPF_GRAY, TJSAMP_GRAY);
  const Bytes header_only(jpeg.begin(), jpeg.begin() + 200);  // cut before the scan starts
  for (int round = 0; round < 3; ++round) {
    CHECK_THROWS_AS(DecodeJpegBytes(header_only), Error);
    CHECK(DecodeJpegBytes(gray).size() == 24 * 32 * 3);
    CHECK(testing::MaxAbsDiff(DecodeJpegBytes(jpeg), DecodeJpegBytes(jpeg)) == 0);
  }
}

// `jpeg` with three junk bytes before its first DHT marker: libjpeg warns "Corrupt JPEG
// data: 3 extraneous bytes before marker 0xc4" and decodes the image as if they were absent.
Bytes WithJunkBeforeDht(const Bytes& jpeg) {
  for (size_t i = 2; i + 1 < jpeg.size(); ++i) {
    if (jpeg[i] == 0xFF && jpeg[i + 1] == 0xC4) {
      Bytes out(jpeg.begin(), jpeg.begin() + static_cast<long>(i));
      out.insert(out.end(), {0x00, 0x01, 0x02});
      out.insert(out.end(), jpeg.begin() + static_cast<long>(i), jpeg.end());
      return out;
    }
  }
  FAIL("no DHT marker");
  return jpeg;
}

TEST_CASE("libjpeg warnings that PIL decodes through are accepted with the same pixels") {
  const Bytes jpeg = testing::EncodeJpeg(testing::Pattern(24, 40), 24, 40);
  CHECK(DecodeJpegBytes(WithJunkBeforeDht(jpeg)) == DecodeJpegBytes(jpeg));
}

TEST_CASE("an error after a harmless warning is still an error") {
  Bytes jpeg = WithJunkBeforeDht(testing::EncodeJpeg(testing::Pattern(24, 40), 24, 40));
  // Point the first scan component at Huffman tables 3, which are never defined.
  for (size_t i = 2; i + 6 < jpeg.size(); ++i) {
    if (jpeg[i] == 0xFF && jpeg[i + 1] == 0xDA) {
      jpeg[i + 6] = 0x33;
      break;
    }
  }
  const DecodePlan plan = PlanJpeg(jpeg, "t.jpg", 0, 0);
  Bytes rgb(static_cast<size_t>(plan.bytes()));
  try {
    DecodeJpeg(jpeg, plan, "t.jpg", rgb);
    FAIL("a JPEG with undefined Huffman tables decoded");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kCorrupt);
    CHECK(std::string(e.what()).find("Huffman table") != std::string::npos);
  }
}

TEST_CASE("a plan made for another JPEG is refused instead of overrunning the output") {
  const Bytes small = testing::EncodeJpeg(testing::Pattern(8, 8), 8, 8);
  const Bytes large = testing::EncodeJpeg(testing::Pattern(64, 64), 64, 64);
  const DecodePlan plan = PlanJpeg(small, "small.jpg", 0, 0);
  Bytes rgb(static_cast<size_t>(plan.bytes()));
  CHECK_THROWS_AS(DecodeJpeg(large, plan, "large.jpg", rgb), Error);
}

TEST_CASE("a progressive JPEG's plan counts its coefficients at full size, whatever the scale") {
  const Bytes rgb = testing::Pattern(1024, 1536);
  const int64_t pixels = 1024 * 1536;
  const Bytes baseline = testing::EncodeJpeg(rgb, 1024, 1536, TJPF_RGB, TJSAMP_420, 90);
  const Bytes progressive =
      testing::EncodeJpeg(rgb, 1024, 1536, TJPF_RGB, TJSAMP_420, 90, TJFLAG_PROGRESSIVE);
  // Baseline: a few rows of samples. Progressive: 2 bytes for each of 1.5 samples a pixel (4:2:0),
  // at 1/8 scale as at full size.
  CHECK(PlanJpeg(baseline, "b.jpg", 128, 192).scratch_bytes < pixels / 2);
  CHECK(PlanJpeg(progressive, "p.jpg", 0, 0).scratch_bytes >= 3 * pixels);
  CHECK(PlanJpeg(progressive, "p.jpg", 128, 192).scratch_bytes >= 3 * pixels);
  CHECK(DecodeJpegBytes(progressive, 128, 192).size() == size_t{128} * 192 * 3);
}

TEST_CASE("a CMYK JPEG's plan counts the 4-byte buffer it decodes into first") {
  Bytes cmyk;
  for (int i = 0; i < 1024 * 1024; ++i) cmyk.insert(cmyk.end(), {0, 255, 255, 255});
  const Bytes jpeg = testing::EncodeJpeg(cmyk, 1024, 1024, TJPF_CMYK, TJSAMP_444, 90);
  CHECK(PlanJpeg(jpeg, "c.jpg", 0, 0).scratch_bytes >= 1024 * 1024 * 4);
  CHECK(PlanJpeg(jpeg, "c.jpg", 128, 128).scratch_bytes < 1024 * 1024);
}

}  // namespace
}  // namespace h5feed::converters::image
