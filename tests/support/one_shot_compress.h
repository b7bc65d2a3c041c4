#pragma once
// One-shot compression for tests and fuzz targets: a fresh vector per call. The library
// compresses into buffers it reuses (codec::ZstdCompressInto, codec::DeflateCompressInto); a
// test wants a frame to keep.

#include <cstdint>
#include <span>
#include <vector>

#include "codec/deflate_codec.h"
#include "codec/zstd_codec.h"

namespace h5feed::testing {

inline std::vector<uint8_t> ZstdCompress(std::span<const uint8_t> input, int level) {
  std::vector<uint8_t> frame;
  codec::ZstdCompressInto(input, level, frame);
  return frame;
}

inline std::vector<uint8_t> DeflateCompress(std::span<const uint8_t> input, int level) {
  std::vector<uint8_t> stream;
  codec::DeflateCompressInto(input, level, stream);
  return stream;
}

}  // namespace h5feed::testing
