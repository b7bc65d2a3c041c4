#include "image/webp_decoder.h"

#include <doctest/doctest.h>

#include <string>

#include "h5feed/error.h"
#include "test_images.h"

namespace h5feed::converters::image {
namespace {

using testing::Bytes;

Bytes DecodeWebpBytes(const Bytes& webp) {
  const DecodePlan plan = PlanWebp(webp, "t.webp");
  Bytes rgb(static_cast<size_t>(plan.bytes()));
  DecodeWebp(webp, plan, "t.webp", rgb);
  return rgb;
}

TEST_CASE("a lossless WebP decodes to exactly its pixels") {
  const Bytes rgb = testing::Pattern(23, 37);
  const Bytes webp = testing::EncodeWebp(rgb, 23, 37, /*alpha=*/false, /*lossless=*/true);
  const DecodePlan plan = PlanWebp(webp, "t.webp");
  CHECK(plan.format == Format::kWebp);
  CHECK(plan.height == 23);
  CHECK(plan.width == 37);
  CHECK(DecodeWebpBytes(webp) == rgb);
}

TEST_CASE("a lossless WebP with alpha keeps the colour channels and drops alpha") {
  Bytes rgba = testing::Pattern(9, 11, 4);
  Bytes rgb;
  for (size_t i = 0; i < rgba.size(); i += 4) {
    rgba[i + 3] = static_cast<uint8_t>(64 + i % 128);  // partly transparent, never 0
    rgb.insert(rgb.end(), {rgba[i], rgba[i + 1], rgba[i + 2]});
  }
  CHECK(DecodeWebpBytes(testing::EncodeWebp(rgba, 9, 11, true, true)) == rgb);
}

TEST_CASE("a lossy WebP of a flat colour decodes close to that colour") {
  const Bytes flat = testing::Uniform(32, 48, 30, 140, 220);
  const Bytes decoded = DecodeWebpBytes(testing::EncodeWebp(flat, 32, 48, false, false, 95));
  CHECK(testing::MaxAbsDiff(decoded, flat) <= 4);
}

TEST_CASE("a truncated WebP is corrupt data naming the file") {
  const Bytes rgb = testing::Pattern(64, 64);
  const Bytes webp = testing::EncodeWebp(rgb, 64, 64, false, false);
  const Bytes cut(webp.begin(), webp.begin() + static_cast<long>(webp.size() / 2));
  const DecodePlan plan = PlanWebp(cut, "cut.webp");
  Bytes out(static_cast<size_t>(plan.bytes()));
  try {
    DecodeWebp(cut, plan, "cut.webp", out);
    FAIL("a truncated WebP decoded without error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kCorrupt);
    CHECK(std::string(e.what()).find("cut.webp") != std::string::npos);
  }
}

TEST_CASE("a lossless WebP's plan counts the ARGB image libwebp decodes into, a lossy one rows") {
  const Bytes small = testing::Pattern(100, 150);
  CHECK(PlanWebp(testing::EncodeWebp(small, 100, 150, false, true), "l.webp").scratch_bytes >=
        4 * 100 * 150);
  const Bytes rgb = testing::Pattern(800, 1200);
  const int64_t pixels = 800 * 1200;
  const int64_t lossy =
      PlanWebp(testing::EncodeWebp(rgb, 800, 1200, false, false), "y.webp").scratch_bytes;
  CHECK(lossy < 2 * pixels);
  CHECK(lossy >= 1200 * 16 * 3);
}

}  // namespace
}  // namespace h5feed::converters::image
