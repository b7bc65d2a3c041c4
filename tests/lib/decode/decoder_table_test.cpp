#include "decode/decoder_table.h"

#include <doctest/doctest.h>

#include <set>
#include <string>

#include "h5feed/encoding_counts.h"
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

TEST_CASE("every decoder has its own key, one lower-case word, which names its count") {
  CHECK(DecoderFor(ImageEncoding::kRaw).key() == "raw");
  CHECK(DecoderFor(ImageEncoding::kJpeg).key() == "jpeg");
  std::set<std::string_view> keys;
  for (const ImageDecoder* decoder : AllDecoders()) {
    const std::string_view key = decoder->key();
    CAPTURE(key);
    CHECK(keys.insert(key).second);
    CHECK(!key.empty());
    CHECK(key.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string_view::npos);
  }
}

TEST_CASE("encoding counts name every encoding of the table, in its order, counted or not") {
  EncodingCounts counts;
  counts.Add(ImageEncoding::kJpeg, 3);
  counts.Add(ImageEncoding::kJpeg);
  CHECK(counts.of(ImageEncoding::kJpeg) == 4);
  CHECK(counts.of(ImageEncoding::kRaw) == 0);
  CHECK(counts.total() == 4);
  const ReportValue value = EncodingCountsValue(counts);
  const auto& object = std::get<ReportValue::Object>(value.value);
  REQUIRE(object.size() == AllDecoders().size());
  for (size_t i = 0; i < object.size(); ++i) {
    CHECK(object[i].first == AllDecoders()[i]->key());
    CHECK(object[i].second == ReportValue(counts.of(AllDecoders()[i]->encoding())));
  }
  EncodingCounts same;
  same.Add(ImageEncoding::kRaw, 0);
  same.Add(ImageEncoding::kJpeg, 4);
  CHECK(same == counts);  // a count of 0 equals one never added
  same.Add(ImageEncoding::kRaw);
  CHECK_FALSE(same == counts);
}

}  // namespace
}  // namespace h5feed::decode
