#pragma once
// The round-trip check shared by the codec fuzz targets: stored bytes made by an encoder must
// decode to exactly the chunk (and its checksum), and decoding into a buffer one byte too
// large or too small must be refused as corrupt data, never fill it silently.

#include <cstring>
#include <span>
#include <vector>

#include "codec/checksum.h"
#include "fuzz_support.h"

namespace h5feed::fuzzing {

// `decode(stored, out)` undoes the encoding into `out`, which must be exactly the chunk's size.
template <typename Decode>
void CheckRoundTrip(std::span<const uint8_t> chunk, std::span<const uint8_t> stored,
                    Decode&& decode) {
  std::vector<uint8_t> back(chunk.size());
  decode(stored, std::span<uint8_t>(back));
  if (!chunk.empty() && std::memcmp(back.data(), chunk.data(), chunk.size()) != 0) {
    Finding("the round trip changed the bytes");
  }
  if (codec::ChunkChecksum(back) != codec::ChunkChecksum(chunk)) {
    Finding("the checksum differs after the round trip");
  }
  std::vector<size_t> wrong_sizes = {chunk.size() + 1};
  if (!chunk.empty()) wrong_sizes.push_back(chunk.size() - 1);
  for (size_t wrong : wrong_sizes) {
    std::vector<uint8_t> out(wrong);
    try {
      decode(stored, std::span<uint8_t>(out));
      Finding("stored bytes decoded into the wrong size without an error");
    } catch (const Error& error) {
      if (error.code() != ErrorCode::kCorrupt) Finding("a wrong size was not reported as corrupt");
    }
  }
}

// One codec input: bit 0 of its first byte chooses a round trip of the rest (1) or the rest
// decoded as arbitrary stored bytes (0). Both take the reader past that byte.
template <typename RoundTrip, typename Arbitrary>
int RunCodecInput(const uint8_t* data, size_t size, RoundTrip&& round_trip, Arbitrary&& arbitrary) {
  ByteReader in(data, size);
  if (in.Byte() & 1) {
    round_trip(in);
  } else {
    arbitrary(in);
  }
  return 0;
}

}  // namespace h5feed::fuzzing
