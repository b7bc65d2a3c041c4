// Fuzz target: the zstd chunk codec (lib/codec/zstd_codec.h).
//   byte 0, bit 0 = 0: arbitrary bytes as a stored chunk: read its content size, decompress it
//     into the size it declares (or the size in bytes 1-2 when it declares none), checksum it;
//   bit 0 = 1: round trip of the payload at level 1-3 (byte 1), the content size recorded.

#include <optional>
#include <vector>

#include "codec/checksum.h"
#include "codec/zstd_codec.h"
#include "codec_round_trip.h"
#include "fuzz_support.h"
#include "support/one_shot_compress.h"

namespace {

using h5feed::fuzzing::ByteReader;

// The largest decoded size the harness allocates for a frame's declared size: libFuzzer's
// -rss_limit_mb would report a frame claiming 4 GiB as out-of-memory, while the chunk reader
// never trusts the frame: it decodes into the chunk size the dataset's geometry gives.
constexpr uint64_t kMaxDecoded = 1 << 20;

void Arbitrary(ByteReader& in) {
  const uint16_t fallback_size = in.U16();
  const std::span<const uint8_t> frame = in.Rest();
  h5feed::fuzzing::ExpectCleanErrorsOnly([&] {
    const std::optional<uint64_t> declared = h5feed::codec::ZstdContentSize(frame);
    std::vector<uint8_t> out(declared && *declared <= kMaxDecoded ? *declared : fallback_size);
    h5feed::codec::ZstdDecompress(frame, out);
    h5feed::codec::ChunkChecksum(out);
  });
}

void RoundTrip(ByteReader& in) {
  const int level = 1 + in.Byte() % 3;
  const std::span<const uint8_t> chunk = in.Rest();
  const std::vector<uint8_t> frame = h5feed::testing::ZstdCompress(chunk, level);
  if (h5feed::codec::ZstdContentSize(frame) != chunk.size()) {
    h5feed::fuzzing::Finding("the frame does not record the chunk's size");
  }
  h5feed::fuzzing::CheckRoundTrip(chunk, frame, h5feed::codec::ZstdDecompress);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return h5feed::fuzzing::RunCodecInput(data, size, RoundTrip, Arbitrary);
}
