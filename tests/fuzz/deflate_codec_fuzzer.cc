// Fuzz target: the deflate chunk codec (lib/codec/deflate_codec.h), HDF5's gzip filter.
//   byte 0, bit 0 = 0: arbitrary bytes as a stored chunk, inflated into the size in bytes 1-2
//     (a chunk's decoded size is always known from the dataset's geometry), checksummed;
//   bit 0 = 1: round trip of the payload at level 1-9 (byte 1).

#include <vector>

#include "codec/checksum.h"
#include "codec/deflate_codec.h"
#include "codec_round_trip.h"
#include "fuzz_support.h"
#include "support/one_shot_compress.h"

namespace {

using h5feed::fuzzing::ByteReader;

void Arbitrary(ByteReader& in) {
  std::vector<uint8_t> out(in.U16());
  const std::span<const uint8_t> stream = in.Rest();
  h5feed::fuzzing::ExpectCleanErrorsOnly([&] {
    h5feed::codec::DeflateDecompress(stream, out);
    h5feed::codec::ChunkChecksum(out);
  });
}

void RoundTrip(ByteReader& in) {
  const int level = 1 + in.Byte() % 9;
  const std::span<const uint8_t> chunk = in.Rest();
  h5feed::fuzzing::CheckRoundTrip(chunk, h5feed::testing::DeflateCompress(chunk, level),
                                  h5feed::codec::DeflateDecompress);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return h5feed::fuzzing::RunCodecInput(data, size, RoundTrip, Arbitrary);
}
