#include "sources/image_folder_source.h"

#include <doctest/doctest.h>

#include <zlib.h>

#include <string>
#include <vector>

#include "converters/image/test_images.h"
#include "converters/sample_buffer.h"
#include "h5feed/error.h"
#include "scratch_dir.h"
#include "support/caught_error.h"

namespace h5feed::converters {
namespace {

using image::testing::Bytes;
using image::testing::PatternPng;
using testing::CaughtError;
using testing::SampleBuffer;
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
  SampleBuffer out;
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
  SampleBuffer out;
  int good = 0;
  for (int64_t i = 0; i < source->count(); ++i) {
    const std::string name = source->name(i);
    CAPTURE(name);
    if (name.find("good") != std::string::npos) {
      source->Read(i, out);
      CHECK(out.shape == ImageShape{16, 16, 3});
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

// Reads sample i; returns the shape it is stored at.
ImageShape ReadOwn(const SampleSource& source, int64_t i) {
  SampleBuffer out;
  source.Read(i, out);
  return out.shape;
}

TEST_CASE("two sizes that both decode make a source of images at their own size") {
  ScratchDir dir;
  for (int i = 0; i < 3; ++i) {
    WriteFile(dir / ("c/a" + std::to_string(i) + ".png"), PatternPng(16, 16, i));
  }
  WriteFile(dir / "c/odd.jpg", Jpeg(12, 20, 5));
  WriteFile(dir / "c/odd_cut.png", FirstBytes(PatternPng(30, 30, 2), 60));  // broken: skipped
  // A header claiming fewer rows than its data holds decodes (PIL reads it so too): it is an
  // image of that size.
  WriteFile(dir / "c/short_header.png", WithDeclaredHeight(PatternPng(16, 16, 4), 10));
  ImageFolderOptions options;
  options.threads = 2;
  const std::unique_ptr<SampleSource> source = OpenImageFolder(dir.path(), options);
  CHECK(source->own_size());
  CHECK(source->max_side() == kDefaultMaxSide);
  // The largest any may be stored at, from the headers: the chunks' room. A broken file's
  // header may raise it (odd_cut.png says 30 x 30), which costs room, never an image.
  CHECK(source->shape().bytes() >= 16 * 16 * 3);
  for (int64_t i = 0; i < source->count(); ++i) {
    const std::string name = source->name(i);
    CAPTURE(name);
    if (name == "c/odd_cut.png") {
      CHECK(CaughtError([&] { ReadOwn(*source, i); }).code() == ErrorCode::kCorrupt);
      continue;
    }
    const ImageShape shape = ReadOwn(*source, i);
    const ImageShape expected = name == "c/odd.jpg"            ? ImageShape{12, 20, 3}
                                : name == "c/short_header.png" ? ImageShape{10, 16, 3}
                                                               : ImageShape{16, 16, 3};
    CHECK(shape.height == expected.height);
    CHECK(shape.width == expected.width);
  }
}

TEST_CASE("images above the cap are stored shrunk: one capped size is one shape, fitted") {
  ScratchDir dir;
  WriteFile(dir / "c/a.png", PatternPng(40, 30, 1));
  WriteFile(dir / "c/b.jpg", Jpeg(40, 31, 2));  // capped to 20x15 too
  ImageFolderOptions options;
  options.max_side = 20;
  const std::unique_ptr<SampleSource> source = OpenImageFolder(dir.path(), options);
  CHECK(!source->own_size());
  CHECK(source->shape().height == 20);
  CHECK(source->shape().width == 15);
  // Both fitted to the one shape, which the source asks for every time.
  CHECK(ReadOwn(*source, 0) == ImageShape{20, 15, 3});
  CHECK(ReadOwn(*source, 1) == ImageShape{20, 15, 3});

  options.own_size = true;  // what a JPEG encoding asks for: each at its own size anyway
  const std::unique_ptr<SampleSource> own = OpenImageFolder(dir.path(), options);
  CHECK(own->own_size());
  CHECK(ReadOwn(*own, 0).height == 20);
  CHECK(ReadOwn(*own, 1).width == 15);
  options.max_side = -1;
  CHECK(CaughtError([&] { OpenImageFolder(dir.path(), options); }).code() ==
        ErrorCode::kInvalidArgument);
}

TEST_CASE("a folder where no file of any size decodes is refused") {
  ScratchDir dir;
  WriteFile(dir / "c/a.jpg", FirstBytes(Jpeg(40, 40, 1), 700));
  WriteFile(dir / "c/b.png", FirstBytes(PatternPng(16, 16, 2), 100));
  const Error e = CaughtError([&] { OpenImageFolder(dir.path(), ImageFolderOptions{}); });
  CHECK(e.code() == ErrorCode::kCorrupt);
  CHECK(std::string(e.what()).find("no readable image") != std::string::npos);
}

TEST_CASE("a folder where no file has a header h5feed reads is refused with the first reason") {
  ScratchDir dir;
  WriteFile(dir / "c/a.jpg", std::vector<uint8_t>{'x', '\n'});
  const Error e = CaughtError([&] { OpenImageFolder(dir.path(), ImageFolderOptions{}); });
  CHECK(e.code() == ErrorCode::kCorrupt);
  CHECK(std::string(e.what()).find("its one file could not be read; the first: cannot decode an "
                                   "image") != std::string::npos);
  CHECK(std::string(e.what()).find("c/a.jpg") != std::string::npos);
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
}  // namespace h5feed::converters
