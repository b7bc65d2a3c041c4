#include "index/hdf5_filters.h"

#include <cstdio>
#include <cstring>
#include <string>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::index {
namespace {

constexpr size_t kFletcherBytes = 4;

std::string Hex32(uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%08x", value);
  return text;
}

}  // namespace

uint32_t Fletcher32(std::span<const uint8_t> bytes) {
  const uint8_t* data = bytes.data();
  size_t words = bytes.size() / 2;
  uint32_t sum1 = 0, sum2 = 0;
  // 360 words is the most that can be summed before sum2 may overflow 32 bits (HDF5's bound);
  // then both sums are folded back to 17 bits.
  while (words > 0) {
    size_t block = words > 360 ? 360 : words;
    words -= block;
    do {
      sum1 += (static_cast<uint32_t>(data[0]) << 8) | data[1];
      data += 2;
      sum2 += sum1;
    } while (--block);
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  }
  if (bytes.size() % 2 != 0) {
    sum1 += static_cast<uint32_t>(*data) << 8;
    sum2 += sum1;
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  }
  sum1 = (sum1 & 0xffff) + (sum1 >> 16);
  sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  return (sum2 << 16) | sum1;
}

std::span<const uint8_t> StripFletcher32(std::span<const uint8_t> stored) {
  if (stored.size() < kFletcherBytes) {
    throw MakeError(
        ErrorCode::kCorrupt,
        "a chunk with a fletcher32 checksum holds {} bytes, fewer than the checksum's 4",
        stored.size());
  }
  std::span<const uint8_t> data = stored.first(stored.size() - kFletcherBytes);
  const uint8_t* tail = stored.data() + data.size();
  // UINT32DECODE: little-endian, whatever the machine.
  const uint32_t recorded = uint32_t{tail[0]} | uint32_t{tail[1]} << 8 | uint32_t{tail[2]} << 16 |
                            uint32_t{tail[3]} << 24;
  const uint32_t computed = Fletcher32(data);
  // H5Zfletcher32.c swaps bytes 0<->1 and 2<->3 of the checksum's little-endian image.
  const uint32_t swapped = ((computed & 0x00ff00ffu) << 8) | ((computed & 0xff00ff00u) >> 8);
  if (recorded != computed && recorded != swapped) {
    throw MakeError(ErrorCode::kCorrupt, "fletcher32 checksum mismatch (stored {}, computed {})",
                    Hex32(recorded), Hex32(computed));
  }
  return data;
}

bool ShuffleIsNoOp(uint64_t bytes, uint64_t element_bytes) {
  return element_bytes <= 1 || bytes / element_bytes <= 1;
}

void Unshuffle(std::span<const uint8_t> in, std::span<uint8_t> out, uint64_t element_bytes) {
  if (ShuffleIsNoOp(in.size(), element_bytes)) {
    std::memcpy(out.data(), in.data(), in.size());
    return;
  }
  const size_t size = static_cast<size_t>(element_bytes);
  const size_t elements = in.size() / size;
  const uint8_t* from = in.data();
  for (size_t byte = 0; byte < size; ++byte) {
    uint8_t* to = out.data() + byte;
    for (size_t e = 0; e < elements; ++e, to += size) *to = *from++;
  }
  const size_t leftover = in.size() % size;
  std::memcpy(out.data() + elements * size, from, leftover);
}

}  // namespace h5feed::index
