#include "decode/jpeg_info.h"

#include <doctest/doctest.h>

#include <string>

#include "h5feed/error.h"
#include "test_jpegs.h"

namespace h5feed::decode {
namespace {

using testing::Bytes;
using testing::EncodeTestJpeg;
using testing::PhotoPixels;

void CheckCorrupt(std::span<const uint8_t> bytes, const std::string& says) {
  try {
    ReadJpegInfo(bytes);
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kCorrupt);
    CHECK_MESSAGE(std::string(error.what()).find(says) != std::string::npos, error.what());
  }
}

TEST_CASE("the header's size and delivered channels are read") {
  const Bytes rgb = PhotoPixels(37, 53, 3, 1);
  const Bytes gray = PhotoPixels(37, 53, 1, 2);
  for (int subsampling : {TJSAMP_420, TJSAMP_444, TJSAMP_422}) {
    const JpegInfo info = ReadJpegInfo(EncodeTestJpeg(rgb, 37, 53, subsampling));
    CHECK(info.height == 37);
    CHECK(info.width == 53);
    CHECK(info.channels == 3);
  }
  const JpegInfo info = ReadJpegInfo(EncodeTestJpeg(gray, 37, 53, TJSAMP_GRAY));
  CHECK(info.height == 37);
  CHECK(info.width == 53);
  CHECK(info.channels == 1);
}

TEST_CASE("a header of only a few bytes is enough: the pixels are not read") {
  const Bytes rgb = PhotoPixels(100, 80, 3, 3);
  const Bytes jpeg = EncodeTestJpeg(rgb, 100, 80, TJSAMP_420);
  // Everything up to the first scan's data: the header ends where SOS does.
  size_t sos = 0;
  while (!(jpeg[sos] == 0xFF && jpeg[sos + 1] == 0xDA)) ++sos;
  const size_t header = sos + 2 + (size_t{jpeg[sos + 2]} << 8 | jpeg[sos + 3]);
  CHECK(ReadJpegInfo(std::span(jpeg.data(), header)).height == 100);
}

TEST_CASE("CMYK and YCCK JPEGs are not delivered") {
  const Bytes cmyk = PhotoPixels(16, 16, 4, 4);
  CheckCorrupt(EncodeTestJpeg(cmyk, 16, 16, TJSAMP_444, 90, 0, TJPF_CMYK), "4 components");
}

TEST_CASE("bytes that are not a JPEG, and a truncated header, are corrupt data") {
  CheckCorrupt(Bytes{}, "JPEG: ");
  CheckCorrupt(Bytes{0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'}, "JPEG: ");
  const Bytes rgb = PhotoPixels(16, 16, 3, 5);
  const Bytes jpeg = EncodeTestJpeg(rgb, 16, 16, TJSAMP_420);
  CheckCorrupt(std::span(jpeg.data(), 30), "JPEG: ");
}

}  // namespace
}  // namespace h5feed::decode
