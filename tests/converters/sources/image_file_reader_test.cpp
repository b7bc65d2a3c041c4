#include "sources/image_file_reader.h"

#include <doctest/doctest.h>

#include <zlib.h>

#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "converters/image/test_images.h"
#include "h5feed/error.h"
#include "scratch_dir.h"
#include "support/caught_error.h"

namespace h5feed::converters {
namespace {

using image::testing::Bytes;
using image::testing::PatternPng;
using testing::CaughtError;
using testing::ScratchDir;
using testing::WriteFile;
constexpr int64_t kMiB = int64_t{1} << 20;

// The command line's names of the options a refusal names (ConvertOptions::option_names).
std::string CommandLineNames(std::string_view field) {
  if (field == "max_pixels") return "--max-pixels";
  if (field == "memory") return "--memory-limit";
  return "";
}

// What the conversion stored before images were read within a budget: the whole image decoded,
// then ResizeInto, in each mode.
std::vector<Bytes> WholeDecodeResized(const Bytes& encoded, image::Size target,
                                      const std::vector<image::ResizeMode>& modes) {
  const image::DecodePlan plan = image::PlanDecode(encoded, "whole");
  Bytes rgb(static_cast<size_t>(plan.bytes()));
  image::Decode(encoded, plan, "whole", rgb);
  std::vector<Bytes> resized;
  for (image::ResizeMode mode : modes) {
    resized.emplace_back(static_cast<size_t>(target.height) * target.width * 3);
    image::ResizeInto(rgb, {plan.height, plan.width}, target, mode, resized.back());
  }
  return resized;
}

// A PNG whose header declares `height` x `width` RGB and whose data holds a few rows of zeros:
// a decompression bomb's header, in a few hundred bytes.
Bytes PngBomb(uint32_t height, uint32_t width) {
  const auto be32 = [](Bytes& out, uint32_t v) {
    for (int i = 3; i >= 0; --i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  const auto chunk = [&](Bytes& out, const char* type, const Bytes& data) {
    be32(out, static_cast<uint32_t>(data.size()));
    Bytes body(type, type + 4);
    body.insert(body.end(), data.begin(), data.end());
    out.insert(out.end(), body.begin(), body.end());
    be32(out, static_cast<uint32_t>(crc32(0, body.data(), static_cast<uInt>(body.size()))));
  };
  Bytes png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  Bytes ihdr;
  be32(ihdr, width);
  be32(ihdr, height);
  ihdr.insert(ihdr.end(), {8, 2, 0, 0, 0});
  chunk(png, "IHDR", ihdr);
  const Bytes rows(4 * (size_t{width} * 3 + 1), 0);
  Bytes idat(compressBound(static_cast<uLong>(rows.size())));
  uLongf size = static_cast<uLongf>(idat.size());
  REQUIRE(compress(idat.data(), &size, rows.data(), static_cast<uLong>(rows.size())) == Z_OK);
  idat.resize(size);
  chunk(png, "IDAT", idat);
  chunk(png, "IEND", {});
  return png;
}

// Smooth bands and edges, which compress well: the file stays small beside its pixels.
Bytes SmoothPng(int height, int width) {
  Bytes rgb(static_cast<size_t>(height) * width * 3);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      uint8_t* p = &rgb[(static_cast<size_t>(y) * width + x) * 3];
      p[0] = static_cast<uint8_t>(x / 7 + y / 3);
      p[1] = static_cast<uint8_t>((x / 50 + y / 50) % 2 * 200);
      p[2] = static_cast<uint8_t>(y * 255 / height);
    }
  }
  return image::testing::EncodePng(rgb.data(), rgb.size(), height, width, SPNG_COLOR_TYPE_TRUECOLOR,
                                   8);
}

TEST_CASE(
    "a PNG too large to decode whole is read row by row, with the whole decode's pixels, "
    "leasing far less than its decoded size") {
  ScratchDir dir;
  const Bytes png = SmoothPng(2400, 2500);  // 18 MB decoded: over the 16 MiB decoded whole
  WriteFile(dir / "big.png", png);
  const std::vector<image::ResizeMode> modes = {
      image::ResizeMode::kCrop, image::ResizeMode::kStretch, image::ResizeMode::kPad};
  const std::vector<Bytes> expected = WholeDecodeResized(png, {64, 48}, modes);
  for (size_t m = 0; m < modes.size(); ++m) {
    CAPTURE(m);
    MemoryBudget budget(32 * kMiB);
    ImageFileReader reader(budget, kDefaultMaxPixels);
    Bytes out(64 * 48 * 3);
    reader.Read(dir / "big.png", {64, 48}, modes[m], out);
    CHECK(out == expected[m]);
    // The file and a few rows: not the 18 MB of pixels.
    CHECK(budget.peak() < static_cast<int64_t>(png.size()) + 2 * kMiB);
    CHECK(budget.peak() < 2500 * 2400 * 3 / 2);
  }
}

TEST_CASE("without a resize mode an image is decoded straight into the output") {
  ScratchDir dir;
  const Bytes rgb = image::testing::Pattern(30, 40);
  WriteFile(dir / "a.png", image::testing::EncodePng(rgb.data(), rgb.size(), 30, 40,
                                                     SPNG_COLOR_TYPE_TRUECOLOR, 8));
  MemoryBudget budget(32 * kMiB);
  ImageFileReader reader(budget, kDefaultMaxPixels);
  Bytes out(rgb.size());
  reader.Read(dir / "a.png", {30, 40}, std::nullopt, out);
  CHECK(out == rgb);
  CHECK(reader.ReadSize(dir / "a.png").width == 40);
}

TEST_CASE(
    "an image over max_pixels is refused naming the file, its size and --max-pixels, "
    "before anything is decoded") {
  ScratchDir dir;
  WriteFile(dir / "bomb.png", PngBomb(20000, 20000));  // 1.2 GB of RGB in a few hundred bytes
  MemoryBudget budget(32 * kMiB);
  ImageFileReader reader(budget, kDefaultMaxPixels, CommandLineNames);
  Bytes out(16 * 16 * 3);
  for (const auto& call : {std::function<void()>([&] { reader.ReadSize(dir / "bomb.png"); }),
                           std::function<void()>([&] {
                             reader.Read(dir / "bomb.png", {16, 16}, image::ResizeMode::kCrop, out);
                           })}) {
    const Error e = CaughtError(call);
    CHECK(e.code() == ErrorCode::kCorrupt);
    const std::string message = e.what();
    CHECK(message.find("bomb.png") != std::string::npos);
    CHECK(message.find("20000x20000") != std::string::npos);
    CHECK(message.find("--max-pixels") != std::string::npos);
  }
  CHECK(budget.peak() < kMiB);
  // With no pixel limit it is decoded row by row, in little memory, and found truncated.
  ImageFileReader unlimited(budget, 0);
  const Error e = CaughtError([&] {
    unlimited.Read(dir / "bomb.png", {16, 16}, image::ResizeMode::kCrop, out);
  });
  CHECK(std::string(e.what()).find("truncated") != std::string::npos);
  CHECK(budget.peak() < 2 * kMiB);
}

TEST_CASE("an image the budget can never lend enough for is refused naming --memory-limit") {
  ScratchDir dir;
  // OpenCV decodes a BMP whole into its own copy: 2000 x 2000 needs more than 32 MiB.
  const Bytes rgb = image::testing::Pattern(2000, 2000);
  WriteFile(dir / "big.bmp", image::testing::EncodeOpenCv(".bmp", rgb, 2000, 2000));
  MemoryBudget budget(32 * kMiB);
  ImageFileReader reader(budget, kDefaultMaxPixels, CommandLineNames);
  Bytes out(16 * 16 * 3);
  const Error e = CaughtError([&] {
    reader.Read(dir / "big.bmp", {16, 16}, image::ResizeMode::kCrop, out);
  });
  CHECK(e.code() == ErrorCode::kCorrupt);
  const std::string message = e.what();
  CHECK(message.find("big.bmp") != std::string::npos);
  CHECK(message.find("--memory-limit") != std::string::npos);
}

TEST_CASE("a file of another size than asked, without a mode, fails with its decode error") {
  ScratchDir dir;
  const Bytes png = PatternPng(24, 24);
  WriteFile(dir / "cut.png", Bytes(png.begin(), png.begin() + static_cast<long>(png.size() / 2)));
  WriteFile(dir / "other.png", PatternPng(24, 24));
  MemoryBudget budget(32 * kMiB);
  ImageFileReader reader(budget, kDefaultMaxPixels);
  Bytes out(16 * 16 * 3);
  const std::string cut = CaughtError([&] {
                            reader.Read(dir / "cut.png", {16, 16}, std::nullopt, out);
                          }).what();
  CAPTURE(cut);
  CHECK(cut.find("truncated") != std::string::npos);
  CHECK(cut.find("changed size") == std::string::npos);
  const std::string other = CaughtError([&] {
                              reader.Read(dir / "other.png", {16, 16}, std::nullopt, out);
                            }).what();
  CHECK(other.find("changed size") != std::string::npos);
  CHECK_THROWS_AS(reader.CheckDecodes(dir / "cut.png"), Error);
  reader.CheckDecodes(dir / "other.png");
}

TEST_CASE("threads whose images each need most of the budget take turns, and all finish") {
  ScratchDir dir;
  // Each BMP needs about 13 MiB to decode whole: two at once fit in 32 MiB, three do not.
  const Bytes rgb = image::testing::Pattern(900, 1000);
  const std::vector<std::string> paths = {dir / "i0.bmp", dir / "i1.bmp", dir / "i2.bmp",
                                          dir / "i3.bmp", dir / "i4.bmp", dir / "i5.bmp"};
  for (const std::string& path : paths) {
    WriteFile(path, image::testing::EncodeOpenCv(".bmp", rgb, 900, 1000));
  }
  const Bytes expected = WholeDecodeResized(image::testing::EncodeOpenCv(".bmp", rgb, 900, 1000),
                                            {32, 32}, {image::ResizeMode::kCrop})[0];
  MemoryBudget budget(32 * kMiB);
  ImageFileReader reader(budget, kDefaultMaxPixels);
  std::vector<std::thread> threads;
  std::vector<int> right(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (const std::string& path : paths) {
        Bytes out(32 * 32 * 3);
        reader.Read(path, {32, 32}, image::ResizeMode::kCrop, out);
        right[t] += out == expected;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(right == std::vector<int>{6, 6, 6, 6});
  CHECK(budget.peak() <= 32 * kMiB);
  reader.ReleaseIdle();
  CHECK(budget.Acquire(32 * kMiB).bytes() == 32 * kMiB);  // nothing kept after ReleaseIdle
}

}  // namespace
}  // namespace h5feed::converters
