#include "codec/checksum.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string_view>
#include <vector>

namespace h5feed::codec {
namespace {

std::span<const uint8_t> Bytes(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

// xxHash's sanity buffer (xsum_sanity_check.c): byte i is the top byte of PRIME32 * PRIME64^i.
std::vector<uint8_t> SanityBuffer(size_t length) {
  std::vector<uint8_t> buffer(length);
  uint64_t generator = 2654435761ULL;
  for (uint8_t& byte : buffer) {
    byte = static_cast<uint8_t>(generator >> 56);
    generator *= 11400714785074694797ULL;
  }
  return buffer;
}

TEST_CASE("the checksum is XXH3-64 with seed 0, matching xxHash's reference vectors") {
  CHECK(ChunkChecksum({}) == 0x2D06800538D394C2ULL);
  CHECK(ChunkChecksum(Bytes("hello")) == 0x9555E8555C62DCFDULL);
  // One length per internal code path of XXH3 (1-3, 4-8, 9-16, 17-128, 129-240, long).
  const std::pair<size_t, uint64_t> vectors[] = {
      {1, 0xC44BDFF4074EECDBULL},  {6, 0x27B56A84CD2D7325ULL},   {12, 0xA713DAF0DFBB77E7ULL},
      {24, 0xA3FE70BF9D3510EBULL}, {195, 0xCD94217EE362EC3AULL}, {512, 0x617E49599013CB6BULL},
  };
  for (const auto& vector : vectors) {
    const size_t length = vector.first;  // a name, not a binding: CAPTURE's lambda takes it
    CAPTURE(length);
    CHECK(ChunkChecksum(SanityBuffer(length)) == vector.second);
  }
}

TEST_CASE("one flipped bit in a 4 MiB chunk changes the checksum") {
  std::vector<uint8_t> chunk = SanityBuffer(4 << 20);
  uint64_t original = ChunkChecksum(chunk);
  chunk[3'000'000] ^= 0x10;
  CHECK(ChunkChecksum(chunk) != original);
}

TEST_CASE("the checksum's name is the one docs/format.md gives") {
  CHECK(std::string_view(kChecksumName) == "xxh3-64");
}

}  // namespace
}  // namespace h5feed::codec
