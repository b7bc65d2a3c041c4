#include "codec/zstd_codec.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "h5feed/error.h"
#include "support/one_shot_compress.h"

namespace h5feed::codec {
namespace {

std::vector<uint8_t> ImageLike(size_t size, uint32_t seed = 12345) {
  std::vector<uint8_t> bytes(size);
  uint32_t noise = seed;
  for (size_t i = 0; i < size; ++i) {
    noise = noise * 1664525u + 1013904223u;
    bytes[i] = static_cast<uint8_t>((i / 7) % 200 + (noise >> 30));
  }
  return bytes;
}

ErrorCode DecompressError(std::span<const uint8_t> frame, size_t size) {
  std::vector<uint8_t> output(size);
  try {
    ZstdDecompress(frame, output);
  } catch (const Error& error) {
    return error.code();
  }
  return ErrorCode::kInternal;  // did not throw: no test expects this
}

TEST_CASE("zstd round-trips at several levels, empty and large inputs included") {
  for (size_t size : {size_t{0}, size_t{1}, size_t{1000}, size_t{9} << 20}) {
    std::vector<uint8_t> input = ImageLike(size);
    for (int level : {1, 3, 9, 19}) {
      if (level == 19 && size > 1000) continue;  // level 19 on 9 MiB takes seconds
      CAPTURE(size);
      CAPTURE(level);
      std::vector<uint8_t> frame = testing::ZstdCompress(input, level);
      std::vector<uint8_t> output(size, 0xAB);
      ZstdDecompress(frame, output);
      CHECK(output == input);
    }
  }
}

TEST_CASE("each frame records its content size, as HDF5's zstd filter readers expect") {
  std::vector<uint8_t> input = ImageLike(123457);
  std::vector<uint8_t> frame = testing::ZstdCompress(input, 3);
  CHECK(ZstdContentSize(frame) == std::optional<uint64_t>(123457));
  CHECK(frame[0] == 0x28);  // the zstd magic number 0xFD2FB528, little-endian
  CHECK(frame[3] == 0xFD);
}

TEST_CASE("ZstdCompressInto reuses the buffer's memory and leaves nothing of the frame before") {
  std::vector<uint8_t> first = ImageLike(1 << 20);
  std::vector<uint8_t> second = ImageLike(1 << 20);
  std::reverse(second.begin(), second.end());
  std::vector<uint8_t> frame;
  ZstdCompressInto(first, 3, frame);
  const uint8_t* memory = frame.data();
  ZstdCompressInto(second, 3, frame);
  CHECK(frame == testing::ZstdCompress(second, 3));  // nothing of the first frame left over
  CHECK(frame.data() == memory);                     // the same allocation: no new buffer per chunk
  std::vector<uint8_t> back(second.size());
  ZstdDecompress(frame, back);
  CHECK(back == second);
  CHECK_THROWS_AS(ZstdCompressInto(first, 0, frame), Error);
}

TEST_CASE("a frame that decompresses to another size is corrupt data") {
  std::vector<uint8_t> input = ImageLike(10000);
  std::vector<uint8_t> frame = testing::ZstdCompress(input, 3);
  CHECK(DecompressError(frame, 9999) == ErrorCode::kCorrupt);
  CHECK(DecompressError(frame, 10001) == ErrorCode::kCorrupt);
}

TEST_CASE("a damaged, truncated or foreign frame is corrupt data") {
  std::vector<uint8_t> input = ImageLike(100000);
  std::vector<uint8_t> frame = testing::ZstdCompress(input, 3);
  std::vector<uint8_t> truncated(frame.begin(), frame.end() - 10);
  CHECK(DecompressError(truncated, input.size()) == ErrorCode::kCorrupt);
  std::vector<uint8_t> not_zstd(100, 0x42);
  CHECK(DecompressError(not_zstd, input.size()) == ErrorCode::kCorrupt);
  CHECK(DecompressError({}, input.size()) == ErrorCode::kCorrupt);
  CHECK_THROWS_AS(ZstdContentSize(not_zstd), Error);
  // Damage inside the compressed blocks: zstd detects most such damage itself (bad block or
  // sequence encoding); what it cannot see, the chunk checksum catches. Either way, never a
  // crash and never a silent wrong size.
  int detected = 0;
  for (size_t at = 20; at < frame.size(); at += frame.size() / 50) {
    std::vector<uint8_t> damaged = frame;
    damaged[at] ^= 0x5A;
    std::vector<uint8_t> output(input.size());
    try {
      ZstdDecompress(damaged, output);
    } catch (const Error& error) {
      CHECK(error.code() == ErrorCode::kCorrupt);
      ++detected;
    }
  }
  CHECK(detected > 0);
}

TEST_CASE("a level outside 1-22 is an invalid argument") {
  std::vector<uint8_t> input(10, 1);
  std::vector<uint8_t> frame;
  for (int level : {-1, 0, 23}) {
    try {
      ZstdCompressInto(input, level, frame);
      FAIL("level " << level << " was accepted");
    } catch (const Error& error) {
      CHECK(error.code() == ErrorCode::kInvalidArgument);
    }
  }
}

TEST_CASE("threads compress and decompress at once, each with its own context") {
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < 4; ++t) {
    threads.emplace_back([t, &mismatches] {
      for (int round = 0; round < 20; ++round) {
        std::vector<uint8_t> input = ImageLike(200000 + t * 1000 + round, t * 100 + round);
        std::vector<uint8_t> frame = testing::ZstdCompress(input, 1 + round % 5);
        std::vector<uint8_t> output(input.size());
        ZstdDecompress(frame, output);
        if (output != input) ++mismatches;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(mismatches == 0);
}

}  // namespace
}  // namespace h5feed::codec
