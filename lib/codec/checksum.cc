#include "codec/checksum.h"

#include <xxhash.h>

namespace h5feed::codec {

uint64_t ChunkChecksum(std::span<const uint8_t> bytes) {
  return XXH3_64bits(bytes.data(), bytes.size());
}

}  // namespace h5feed::codec
