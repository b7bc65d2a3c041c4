#include "image/image_decoder.h"

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "h5feed/error.h"
#include "test_images.h"

namespace h5feed::converters::image {
namespace {

using testing::Bytes;

Bytes DecodeAll(const Bytes& encoded, const std::string& name) {
  const DecodePlan plan = PlanDecode(encoded, name);
  Bytes rgb(static_cast<size_t>(plan.bytes()));
  Decode(encoded, plan, name, rgb);
  return rgb;
}

// Runs `f` and returns the Error it throws (failing the test when it throws none).
template <typename F>
Error CatchError(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  FAIL("no h5feed::Error was thrown");
  return Error(ErrorCode::kInternal, "");
}

TEST_CASE("the format is told by the leading bytes, not by the file name") {
  const Bytes rgb = testing::Pattern(20, 30);
  CHECK(PlanDecode(testing::EncodeJpeg(rgb, 20, 30), "a.png").format == Format::kJpeg);
  CHECK(PlanDecode(testing::EncodePng(rgb.data(), rgb.size(), 20, 30, SPNG_COLOR_TYPE_TRUECOLOR, 8),
                   "a.jpg")
            .format == Format::kPng);
  CHECK(PlanDecode(testing::EncodeWebp(rgb, 20, 30, false, true), "a.bmp").format == Format::kWebp);
  for (const char* ext : {".bmp", ".ppm", ".tiff"}) {
    CAPTURE(ext);
    CHECK(PlanDecode(testing::EncodeOpenCv(ext, rgb, 20, 30), "a.jpg").format == Format::kOther);
  }
}

TEST_CASE("a plan gives the stored size and the RGB byte count") {
  const Bytes rgb = testing::Pattern(21, 34);
  const DecodePlan plan = PlanDecode(testing::EncodeJpeg(rgb, 21, 34), "x.jpg");
  CHECK(plan.height == 21);
  CHECK(plan.width == 34);
  CHECK(plan.full_height == 21);
  CHECK(plan.full_width == 34);
  CHECK(plan.bytes() == 21 * 34 * 3);
}

TEST_CASE("every format decodes to the source pixels through the one entry point") {
  const Bytes rgb = testing::Pattern(17, 23);
  CHECK(DecodeAll(testing::EncodePng(rgb.data(), rgb.size(), 17, 23, SPNG_COLOR_TYPE_TRUECOLOR, 8),
                  "p.png") == rgb);
  CHECK(DecodeAll(testing::EncodeWebp(rgb, 17, 23, false, true), "w.webp") == rgb);
  CHECK(DecodeAll(testing::EncodeOpenCv(".bmp", rgb, 17, 23), "b.bmp") == rgb);
  CHECK(testing::MaxAbsDiff(
            DecodeAll(testing::EncodeJpeg(rgb, 17, 23, TJPF_RGB, TJSAMP_444, 100), "j.jpg"), rgb) <=
        8);
}

TEST_CASE("an empty file is corrupt and the message names it") {
  const Error e = CatchError([] { PlanDecode({}, "cats/empty.jpg"); });
  CHECK(e.code() == ErrorCode::kCorrupt);
  CHECK(std::string(e.what()).find("cats/empty.jpg") != std::string::npos);
  CHECK(std::string(e.what()).find("empty") != std::string::npos);
}

TEST_CASE("bytes that are no image are corrupt, naming the file and showing the first bytes") {
  const std::string html = "<!DOCTYPE html><p>404</p>";
  const Bytes bytes(html.begin(), html.end());
  const Error e = CatchError([&] { PlanDecode(bytes, "dogs/page.jpg"); });
  CHECK(e.code() == ErrorCode::kCorrupt);
  CHECK(std::string(e.what()).find("dogs/page.jpg") != std::string::npos);
  CHECK(std::string(e.what()).find("3c 21 44 4f") != std::string::npos);
}

TEST_CASE("a file of a known format h5feed does not decode is named as such, with what to do") {
  // What users' folders hold under image names: GIFs, iPhone photos (HEIC) saved as .jpg, AVIF,
  // JPEG XL and JPEG 2000. "Not a JPEG, PNG, ... (it starts with bytes 47 49 46 38)" says
  // nothing of what the file is, and "re-create the file" would not help.
  const auto bytes = [](std::string_view head) {
    Bytes b(head.begin(), head.end());
    b.resize(64, 0);
    return b;
  };
  const std::vector<std::pair<Bytes, std::string>> files = {
      {bytes("GIF89a"), "a GIF file"},
      {bytes(std::string_view("\0\0\0\x18"
                              "ftypheic",
                              12)),
       "a HEIF (HEIC) file"},
      {bytes(std::string_view("\0\0\0\x1C"
                              "ftypavif",
                              12)),
       "an AVIF file"},
      {bytes(std::string_view("\xFF\x0A", 2)), "a JPEG XL file"},
      {bytes(std::string_view("\0\0\0\x0CjP  \r\n\x87\n", 12)), "a JPEG 2000 file"}};
  for (const auto& named : files) {
    // Named copies: clang does not capture a structured binding in the lambda below.
    const auto& file = named.first;
    const std::string& kind = named.second;
    CAPTURE(kind);
    const Error e = CatchError([&] { PlanDecode(file, "cats/photo.jpg"); });
    CHECK(e.code() == ErrorCode::kCorrupt);  // skipped and recorded as a broken file is
    const std::string message = e.what();
    CHECK(message.find("'cats/photo.jpg': it is " + kind) != std::string::npos);
    CHECK(message.find("convert it to PNG or JPEG") != std::string::npos);
  }
}

TEST_CASE("a macOS ._ file beside an image is named as the metadata it is") {
  Bytes apple_double = {0x00, 0x05, 0x16, 0x07, 0x00, 0x02, 0x00, 0x00};
  apple_double.resize(4096, 0);
  const Error e = CatchError([&] { PlanDecode(apple_double, "__MACOSX/cats/._photo.jpg"); });
  CHECK(e.code() == ErrorCode::kCorrupt);
  CHECK(std::string(e.what()).find("'__MACOSX/cats/._photo.jpg': it is a macOS metadata file") !=
        std::string::npos);
}

TEST_CASE("a signature followed by nothing is corrupt for every format") {
  const std::vector<Bytes> stubs = {{0xFF, 0xD8, 0xFF},
                                    {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'},
                                    {'R', 'I', 'F', 'F', 4, 0, 0, 0, 'W', 'E', 'B', 'P'},
                                    {'B', 'M'},
                                    {'P', '6', '\n'},
                                    {'I', 'I', 42, 0}};
  for (const Bytes& stub : stubs) {
    const Error e = CatchError([&] { PlanDecode(stub, "stub.img"); });
    CHECK(e.code() == ErrorCode::kCorrupt);
    CHECK(std::string(e.what()).find("stub.img") != std::string::npos);
  }
}

TEST_CASE("a decode into a span of the wrong size is refused before any write") {
  const Bytes rgb = testing::Pattern(8, 8);
  const Bytes jpeg = testing::EncodeJpeg(rgb, 8, 8);
  const DecodePlan plan = PlanDecode(jpeg, "x.jpg");
  Bytes small(static_cast<size_t>(plan.bytes()) - 1, 7);
  const Error e = CatchError([&] { Decode(jpeg, plan, "x.jpg", small); });
  CHECK(e.code() == ErrorCode::kInvalidArgument);
  CHECK(small == Bytes(small.size(), 7));
}

TEST_CASE("an absurd stored size is corrupt and nothing is allocated for it") {
  // A BMP header claiming 60000 x 60000 pixels: 10.8 GB decoded.
  Bytes bmp = {'B', 'M'};
  bmp.resize(54, 0);
  const auto put32 = [&](size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) bmp[at + i] = static_cast<uint8_t>(v >> (8 * i));
  };
  put32(14, 40);
  put32(18, 60000);
  put32(22, 60000);
  const Error e = CatchError([&] { PlanDecode(bmp, "big.bmp"); });
  CHECK(e.code() == ErrorCode::kCorrupt);
  CHECK(std::string(e.what()).find("its size 60000x60000 is more than h5feed decodes") !=
        std::string::npos);
}

TEST_CASE("decoding from several threads at once gives the same pixels as from one") {
  const Bytes rgb = testing::Pattern(64, 48);
  const std::vector<Bytes> files = {
      testing::EncodeJpeg(rgb, 64, 48),
      testing::EncodePng(rgb.data(), rgb.size(), 64, 48, SPNG_COLOR_TYPE_TRUECOLOR, 8),
      testing::EncodeWebp(rgb, 64, 48, false, false)};
  std::vector<Bytes> expected;
  for (const Bytes& f : files) expected.push_back(DecodeAll(f, "one thread"));
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        const size_t k = static_cast<size_t>(i + t) % files.size();
        if (DecodeAll(files[k], "many threads") != expected[k]) ++mismatches[t];
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(mismatches == std::vector<int>(4, 0));
}

}  // namespace
}  // namespace h5feed::converters::image
