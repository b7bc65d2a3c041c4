#include "sources/image_folder_source.h"

#include <doctest/doctest.h>

#include <zlib.h>

#include <string>
#include <vector>

#include "converters/image/test_images.h"
#include "h5feed/error.h"
#include "scratch_dir.h"
#include "support/caught_error.h"

namespace h5feed {
namespace {

using image::testing::Bytes;
using image::testing::PatternPng;
using testing::CaughtError;
using testing::ScratchDir;
using testing::WriteFile;

Bytes Jpeg(int height, int width, uint32_t seed) {
  return image::testing::EncodeJpeg(image::testing::Pattern(height, width, 3, seed), height, width);
}

Bytes FirstBytes(const Bytes& file, size_t n) { return Bytes(file.begin(), file.begin() + n); }

// A PNG whose IHDR (CRC fixed up) declares `height` rows: more than its data holds, it is
// truncated; fewer, it is a valid image of that size, as PIL reads it too.
Bytes WithDeclaredHeight(Bytes png, uint32_t height) {
  for (int i = 0; i < 4; ++i) png[20 + i] = static_cast<uint8_t>(height >> (24 - 8 * i));
  const uLong crc = crc32(0, png.data() + 12, 17);  // "IHDR" and its 13 bytes
  for (int i = 0; i < 4; ++i) png[29 + i] = static_cast<uint8_t>(crc >> (24 - 8 * i));
  return png;
}

std::string ReadError(const SampleSource& source, int64_t i) {
  Bytes out(static_cast<size_t>(source.shape().bytes()));
  const Error e = CaughtError([&] { source.Read(i, out); });
  CHECK(e.code() == ErrorCode::kCorrupt);
  return e.what();
}

TEST_CASE(
    "files that do not decode are no evidence of the size, even when they outnumber the "
    "images that do, and are skipped with their decode errors") {
  ScratchDir dir;
  // Three 16x16 images; five truncated downloads of a 40x40 JPEG (the first 700 bytes, header
  // complete); a truncated 8x8 PNG (a header smaller than the dataset's size); a PNG whose
  // header promises 40 rows for 16 rows of data (larger).
  for (int i = 0; i < 3; ++i) {
    WriteFile(dir / ("c/good" + std::to_string(i) + ".png"), PatternPng(16, 16, i));
  }
  const Bytes jpeg = Jpeg(40, 40, 7);
  REQUIRE(jpeg.size() > 700);
  for (int i = 0; i < 5; ++i) {
    WriteFile(dir / ("c/cut" + std::to_string(i) + ".jpg"), FirstBytes(jpeg, 700));
  }
  const Bytes small = PatternPng(8, 8, 9);
  WriteFile(dir / "c/small_cut.png", FirstBytes(small, small.size() - 30));
  WriteFile(dir / "c/tall_header.png", WithDeclaredHeight(PatternPng(16, 16, 3), 40));

  ImageFolderOptions options;
  options.threads = 2;
  const std::unique_ptr<SampleSource> source = OpenImageFolder(dir.path(), options);
  CHECK(source->shape().height == 16);
  CHECK(source->shape().width == 16);
  Bytes out(16 * 16 * 3);
  int good = 0;
  for (int64_t i = 0; i < source->count(); ++i) {
    const std::string name = source->name(i);
    CAPTURE(name);
    if (name.find("good") != std::string::npos) {
      source->Read(i, out);
      ++good;
      continue;
    }
    const std::string message = ReadError(*source, i);
    CHECK(message.find("changed size") == std::string::npos);
    CHECK(message.find("truncated") != std::string::npos);
    CHECK(message.find(name) != std::string::npos);
  }
  CHECK(good == 3);
}

TEST_CASE("two sizes that both decode are an error naming a file of the other size") {
  ScratchDir dir;
  for (int i = 0; i < 3; ++i) {
    WriteFile(dir / ("c/a" + std::to_string(i) + ".png"), PatternPng(16, 16, i));
  }
  WriteFile(dir / "c/odd.jpg", Jpeg(12, 20, 5));
  WriteFile(dir / "c/odd_cut.png", FirstBytes(PatternPng(30, 30, 2), 60));  // broken: not listed
  // A header claiming fewer rows than its data holds decodes (PIL reads it so too): it is an
  // image of that size.
  WriteFile(dir / "c/short_header.png", WithDeclaredHeight(PatternPng(16, 16, 4), 10));
  const Error e = CaughtError([&] { OpenImageFolder(dir.path(), ImageFolderOptions{}); });
  CHECK(e.code() == ErrorCode::kInvalidArgument);
  const std::string message = e.what();
  CHECK(message.find("3 different sizes") != std::string::npos);
  CHECK(message.find("c/odd.jpg: 12x20") != std::string::npos);
  CHECK(message.find("c/short_header.png: 10x16") != std::string::npos);
  CHECK(message.find("odd_cut") == std::string::npos);
  CHECK(message.find("--size") != std::string::npos);
}

TEST_CASE("a folder where no file of any size decodes is refused") {
  ScratchDir dir;
  WriteFile(dir / "c/a.jpg", FirstBytes(Jpeg(40, 40, 1), 700));
  WriteFile(dir / "c/b.png", FirstBytes(PatternPng(16, 16, 2), 100));
  const Error e = CaughtError([&] { OpenImageFolder(dir.path(), ImageFolderOptions{}); });
  CHECK(e.code() == ErrorCode::kCorrupt);
  CHECK(std::string(e.what()).find("no readable image") != std::string::npos);
}

TEST_CASE(
    "an image folder source decodes within the budget it was given, which the conversion "
    "then shares") {
  ScratchDir dir;
  WriteFile(dir / "c/a.png", PatternPng(16, 16, 1));
  MemoryBudget budget(64 << 20);
  ImageFolderOptions options;
  options.memory = &budget;
  const std::unique_ptr<SampleSource> source = OpenImageFolder(dir.path(), options);
  CHECK(source->memory_budget() == &budget);
  CHECK(OpenImageFolder(dir.path(), ImageFolderOptions{})->memory_budget() != nullptr);
  options.max_pixels = -1;
  CHECK(CaughtError([&] { OpenImageFolder(dir.path(), options); }).code() ==
        ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace h5feed
