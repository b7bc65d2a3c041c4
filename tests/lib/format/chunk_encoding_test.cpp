#include "format/chunk_encoding.h"

#include <doctest/doctest.h>

#include <vector>

#include "codec/checksum.h"
#include "codec/deflate_codec.h"
#include "codec/zstd_codec.h"
#include "support/caught_error.h"

namespace h5feed::format {
namespace {

using testing::CodeOf;

constexpr int64_t kImageBytes = 12;  // 2x2x3
constexpr int64_t kChunkImages = 4;

std::vector<uint8_t> Pixels(int64_t images) {
  std::vector<uint8_t> pixels(static_cast<size_t>(images * kImageBytes));
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i * 5 + 1);
  return pixels;
}

TEST_CASE("a short last chunk is stored whole, zero-padded, with the images' own checksums") {
  const std::vector<uint8_t> pixels = Pixels(3);
  std::vector<uint8_t> chunk = pixels;
  EncodedChunk encoded;
  EncodeChunk(chunk, 3, kChunkImages, kImageBytes, Compression::Parse("none"), encoded);
  CHECK(encoded.images == 3);
  REQUIRE(encoded.bytes.size() == kChunkImages * kImageBytes);
  std::vector<uint8_t> padded = pixels;
  padded.resize(kChunkImages * kImageBytes, 0);
  CHECK(encoded.bytes == padded);
  CHECK(encoded.checksum == codec::ChunkChecksum(padded));
  REQUIRE(encoded.image_checksums.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(encoded.image_checksums[i] ==
          codec::RowChecksum({pixels.data() + i * kImageBytes, kImageBytes}));
  }
}

TEST_CASE("zstd and gzip chunks decompress to the padded pixels the checksum was taken of") {
  for (const char* spec : {"zstd:3", "gzip:6"}) {
    const Compression compression = Compression::Parse(spec);
    std::vector<uint8_t> chunk = Pixels(kChunkImages);
    const std::vector<uint8_t> pixels = chunk;
    EncodedChunk encoded;
    EncodeChunk(chunk, kChunkImages, kChunkImages, kImageBytes, compression, encoded);
    std::vector<uint8_t> decoded(pixels.size());
    if (compression.kind == Compression::Kind::kZstd) {
      codec::ZstdDecompress(encoded.bytes, decoded);
    } else {
      codec::DeflateDecompress(encoded.bytes, decoded);
    }
    CHECK(decoded == pixels);
    CHECK(encoded.checksum == codec::ChunkChecksum(pixels));
  }
}

TEST_CASE("a count or a size that does not fit the chunk is refused") {
  EncodedChunk encoded;
  std::vector<uint8_t> chunk = Pixels(5);
  CHECK(CodeOf([&] {
          EncodeChunk(chunk, 5, kChunkImages, kImageBytes, Compression::Parse("none"), encoded);
        }) == ErrorCode::kInvalidArgument);
  std::vector<uint8_t> short_chunk = Pixels(2);
  CHECK(CodeOf([&] {
          EncodeChunk(short_chunk, 3, kChunkImages, kImageBytes, Compression::Parse("none"),
                      encoded);
        }) == ErrorCode::kInvalidArgument);
}

TEST_CASE("compression levels outside zstd's 1-22 and gzip's 1-9 are refused") {
  Compression zstd = Compression::Parse("zstd:3");
  zstd.level = 23;
  CHECK(CodeOf([&] { ValidateCompression(zstd); }) == ErrorCode::kInvalidArgument);
  Compression gzip = Compression::Parse("gzip:6");
  gzip.level = 0;
  CHECK(CodeOf([&] { ValidateCompression(gzip); }) == ErrorCode::kInvalidArgument);
  ValidateCompression(Compression::Parse("zstd:22"));
  ValidateCompression(Compression::Parse("none"));
}

}  // namespace
}  // namespace h5feed::format
