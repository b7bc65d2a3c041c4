#include "index/own_size_index.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "support/caught_error.h"

namespace h5feed::index {
namespace {

using testing::CaughtError;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A table of images of `bytes` each (raw 1-row images of bytes / 3 columns), packed into
// chunks of `chunk` bytes as the writer packs them.
struct Table {
  std::vector<uint64_t> offsets;
  std::vector<uint64_t> bytes;
  std::vector<int32_t> shapes;
  std::vector<uint8_t> encodings;
  int64_t chunks = 0;

  Table(const std::vector<uint64_t>& sizes, uint64_t chunk) {
    uint64_t at = 0;
    for (uint64_t size : sizes) {
      if (chunks == 0 || at % chunk + size > chunk) {
        at = static_cast<uint64_t>(chunks++) * chunk;  // the next chunk starts with it
      }
      offsets.push_back(at);
      bytes.push_back(size);
      shapes.insert(shapes.end(), {1, static_cast<int32_t>(size / 3), 3});
      encodings.push_back(0);
      at += size;
    }
  }

  RowLocator Check(int64_t chunk, int64_t max_side = 0) const {
    return CheckOwnSizeTable(offsets, bytes, shapes, encodings, chunk, chunks, max_side, "f.h5");
  }
};

TEST_CASE("a packed table gives each chunk its run of rows and each image its place") {
  const Table t({30, 60, 30, 90, 15, 15}, 100);  // chunks: {30, 60}, {30}, {90}, {15, 15}
  const RowLocator table = t.Check(100);
  CHECK_FALSE(table.uniform());
  CHECK(table.chunks().chunks() == 4);
  CHECK(table.chunks().first_row(1) == 2);
  CHECK(table.chunks().rows_in(3) == 2);
  CHECK(table.chunks().chunk_of(3) == 2);
  CHECK(table.at(1).offset == 30);  // within its chunk
  CHECK(table.at(1).bytes == 60);
  CHECK(table.at(5).offset == 15);
  CHECK(table.at(5).shape == ImageShape{1, 5, 3});
  CHECK(table.largest().width == 30);
  CHECK(table.chunk_bytes() == 100);
  CHECK(table.count(ImageEncoding::kRaw) == 6);
}

TEST_CASE("a table that breaks the packing rule is damage, named by its first bad image") {
  const Table good({30, 60, 30, 90}, 100);
  SUBCASE("an image that crosses its chunk's end") {
    Table t = good;
    t.offsets[1] = 50;
    CHECK(CaughtError([&] { t.Check(100); }).code() == ErrorCode::kCorrupt);
  }
  SUBCASE("a gap between two images of a chunk") {
    Table t = good;
    t.offsets[1] = 31;
    t.bytes[1] = 57;
    t.shapes[4] = 19;
    CHECK(Contains(CaughtError([&] { t.Check(100); }).what(), "image 1"));
  }
  SUBCASE("a chunk skipped") {
    Table t = good;
    t.offsets[2] = 200;
    t.offsets[3] = 300;
    t.chunks = 4;
    CHECK(CaughtError([&] { t.Check(100); }).code() == ErrorCode::kCorrupt);
  }
  SUBCASE("raw bytes that are not H x W x C") {
    Table t = good;
    t.shapes[1] = 9;
    CHECK(CaughtError([&] { t.Check(100); }).code() == ErrorCode::kCorrupt);
  }
  SUBCASE("an unknown encoding") {
    Table t = good;
    t.encodings[2] = 7;
    CHECK(Contains(CaughtError([&] { t.Check(100); }).what(), "encoding 7"));
  }
  SUBCASE("more chunks in /images than the images fill") {
    Table t = good;
    t.chunks = 5;
    CHECK(CaughtError([&] { t.Check(100); }).code() == ErrorCode::kCorrupt);
  }
}

TEST_CASE("a JPEG claiming a huge size, or one over the file's max_side, is refused at open") {
  Table t({30, 60}, 100);
  t.encodings[1] = 1;  // a JPEG's bytes are what they are; its shape is what its decode costs
  t.shapes[3] = 65535;
  t.shapes[4] = 65535;
  CHECK(CaughtError([&] { t.Check(100); }).code() == ErrorCode::kCorrupt);
  t.shapes[3] = 600;
  t.shapes[4] = 400;
  CHECK(Contains(CaughtError([&] { t.Check(100, 512); }).what(), "max_side"));
  CHECK_NOTHROW(t.Check(100, 600));
}

}  // namespace
}  // namespace h5feed::index
