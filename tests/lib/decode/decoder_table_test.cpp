#include "decode/decoder_table.h"

#include <doctest/doctest.h>

#include <string>

#include "h5feed/error.h"

namespace h5feed::decode {
namespace {

TEST_CASE("every encoding has its decoder, row i of the table the decoder of value i") {
  CHECK(&DecoderFor(ImageEncoding::kRaw) == FindDecoder(ImageEncoding::kRaw));
  CHECK(DecoderFor(ImageEncoding::kRaw).encoding() == ImageEncoding::kRaw);
  CHECK(DecoderFor(ImageEncoding::kRaw).name() == "raw pixels");
  CHECK(DecoderFor(ImageEncoding::kJpeg).encoding() == ImageEncoding::kJpeg);
  CHECK(DecoderFor(ImageEncoding::kJpeg).name() == "JPEG");
  const auto all = AllDecoders();
  REQUIRE(all.size() >= 2);
  for (size_t i = 0; i < all.size(); ++i) {
    CAPTURE(i);
    REQUIRE(all[i] != nullptr);
    CHECK(static_cast<size_t>(all[i]->encoding()) == i);
    CHECK(FindDecoder(static_cast<ImageEncoding>(i)) == all[i]);
  }
  for (size_t i = all.size(); i < 256; ++i) {
    CHECK(FindDecoder(static_cast<ImageEncoding>(i)) == nullptr);
  }
}

TEST_CASE("an encoding no decoder has is an error naming it and the known ones") {
  CHECK(KnownEncodings() == "0 (raw pixels), 1 (JPEG)");
  try {
    DecoderFor(static_cast<ImageEncoding>(7));
    FAIL("encoding 7 has a decoder");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kCorrupt);
    const std::string message = e.what();
    CHECK(message.find("image encoding 7 ") != std::string::npos);
    CHECK(message.find(KnownEncodings()) != std::string::npos);
  }
}

}  // namespace
}  // namespace h5feed::decode
