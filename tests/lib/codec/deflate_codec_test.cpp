#include "codec/deflate_codec.h"

#include <doctest/doctest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "h5feed/error.h"
#include "support/one_shot_compress.h"

namespace h5feed::codec {
namespace {

// Compressible like an image: smooth ramps with a little noise.
std::vector<uint8_t> ImageLike(size_t size) {
  std::vector<uint8_t> bytes(size);
  uint32_t noise = 12345;
  for (size_t i = 0; i < size; ++i) {
    noise = noise * 1664525u + 1013904223u;
    bytes[i] = static_cast<uint8_t>((i / 7) % 200 + (noise >> 30));
  }
  return bytes;
}

ErrorCode DecompressError(std::span<const uint8_t> stream, size_t size) {
  std::vector<uint8_t> output(size);
  try {
    DeflateDecompress(stream, output);
  } catch (const Error& error) {
    return error.code();
  }
  return ErrorCode::kInternal;  // did not throw: no test expects this
}

TEST_CASE("deflate round-trips at every level, empty and large inputs included") {
  for (size_t size : {size_t{0}, size_t{1}, size_t{1000}, size_t{5} << 20}) {
    std::vector<uint8_t> input = ImageLike(size);
    for (int level : {1, 6, 9}) {
      CAPTURE(size);
      CAPTURE(level);
      std::vector<uint8_t> stream = testing::DeflateCompress(input, level);
      std::vector<uint8_t> output(size, 0xAB);
      DeflateDecompress(stream, output);
      CHECK(output == input);
      if (size == (size_t{5} << 20)) CHECK(stream.size() < size * 2 / 3);  // 2 noisy bits/byte
    }
  }
}

TEST_CASE("the stream is exactly what zlib's compress2 produces, as HDF5's deflate filter does") {
  std::vector<uint8_t> input = ImageLike(100000);
  std::vector<uint8_t> expected(compressBound(input.size()));
  uLongf size = expected.size();
  REQUIRE(compress2(expected.data(), &size, input.data(), input.size(), 6) == Z_OK);
  expected.resize(size);
  CHECK(testing::DeflateCompress(input, 6) == expected);
}

TEST_CASE(
    "DeflateCompressInto reuses the buffer's memory and leaves nothing of the stream before") {
  std::vector<uint8_t> first = ImageLike(1 << 20);
  std::vector<uint8_t> second = ImageLike(1 << 20);
  std::reverse(second.begin(), second.end());
  std::vector<uint8_t> stream;
  DeflateCompressInto(first, 6, stream);
  const uint8_t* memory = stream.data();
  DeflateCompressInto(second, 6, stream);
  CHECK(stream == testing::DeflateCompress(second, 6));  // nothing of the first stream left over
  CHECK(stream.data() == memory);
  std::vector<uint8_t> back(second.size());
  DeflateDecompress(stream, back);
  CHECK(back == second);
  CHECK_THROWS_AS(DeflateCompressInto(first, 10, stream), Error);
}

TEST_CASE("a stream that inflates to another size, or is damaged, is corrupt data") {
  std::vector<uint8_t> input = ImageLike(10000);
  std::vector<uint8_t> stream = testing::DeflateCompress(input, 6);
  CHECK(DecompressError(stream, 9999) == ErrorCode::kCorrupt);
  CHECK(DecompressError(stream, 10001) == ErrorCode::kCorrupt);
  std::vector<uint8_t> damaged = stream;
  damaged[damaged.size() / 2] ^= 0xFF;
  CHECK(DecompressError(damaged, 10000) == ErrorCode::kCorrupt);
  std::vector<uint8_t> truncated(stream.begin(), stream.begin() + stream.size() / 2);
  CHECK(DecompressError(truncated, 10000) == ErrorCode::kCorrupt);
  CHECK(DecompressError({}, 10000) == ErrorCode::kCorrupt);
}

TEST_CASE("a level outside 1-9 is an invalid argument") {
  std::vector<uint8_t> input(10, 1);
  std::vector<uint8_t> stream;
  CHECK_THROWS_AS(DeflateCompressInto(input, 0, stream), Error);
  CHECK_THROWS_AS(DeflateCompressInto(input, 10, stream), Error);
}

}  // namespace
}  // namespace h5feed::codec
