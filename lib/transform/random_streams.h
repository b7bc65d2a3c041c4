#pragma once
// Every random stream of h5feed, and the one recipe that turns a seed and a stream's key parts
// into a 64-bit key. Orders (sampler/), echo permutations (pipeline/echo.h) and per-sample
// augmentation draws (augment.h, resized_crop.h) all come from here, so no two streams can
// collide by construction and every consumer (CPU threads, the GPU kernel, any language
// binding reading docs/format.md) computes the same keys.
//
// SplitMix64 (Steele, Lea, Flood 2014): Finalize(z) is its output function, and
//   Mix(x) = Finalize(x + 0x9e3779b97f4a7c15) = SplitMix64(x).Next()
// is a bijection of 64-bit values. The key of a stream:
//   StreamKey(seed, p1, ..., pn) = Mix(... Mix(Mix(seed) ^ p1) ... ^ pn)
// with each part converted to uint64 (two's complement for negative epochs). Each step is a
// bijection of its input, so two keys that differ in one part (the others equal) always
// differ, not merely probably. Where the stream id sits among the parts is part of each
// stream's definition (below); it never changes, or stored orders and resumed runs would.
//
// C++17, header-only, host/device-neutral.

#include <cstdint>

#include "transform/host_device.h"

namespace h5feed::transform {

// What a stream is used for; a key part, so never renumber these.
enum class RandomStream : uint64_t {
  // sampler/epoch_order.h: StreamKey(seed, epoch, stream, lane).
  kGlobalPermutation = 1,  // random: the permutation of all rows (lane 0)
  kChunkOrder = 2,         // chunks, quasi: the order of the chunks (lane 0)
  kLocalShuffle = 3,       // chunks, quasi: the shuffle within a rank's block (lane = rank)
  // pipeline/echo.h: StreamKey(seed, epoch, kEcho, loaded step, copy).
  kEcho = 4,
  // augment.h: flip and zero-padded crop offsets of a sample (see AugmentKey there).
  kAugment = 5,
};

inline constexpr uint64_t kSplitMixGamma = 0x9e3779b97f4a7c15ULL;

H5FEED_HOST_DEVICE inline uint64_t SplitMixFinalize(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// One SplitMix64 step from state x: SplitMix64(x).Next().
H5FEED_HOST_DEVICE inline uint64_t Mix(uint64_t x) { return SplitMixFinalize(x + kSplitMixGamma); }

H5FEED_HOST_DEVICE inline uint64_t KeyPart(RandomStream stream) {
  return static_cast<uint64_t>(stream);
}
H5FEED_HOST_DEVICE inline uint64_t KeyPart(int64_t value) { return static_cast<uint64_t>(value); }
H5FEED_HOST_DEVICE inline uint64_t KeyPart(uint64_t value) { return value; }
H5FEED_HOST_DEVICE inline uint64_t KeyPart(int value) {
  return static_cast<uint64_t>(static_cast<int64_t>(value));
}

// StreamKey(seed, p1, ..., pn) as defined above.
template <typename... Parts>
H5FEED_HOST_DEVICE inline uint64_t StreamKey(uint64_t seed, Parts... parts) {
  uint64_t key = Mix(seed);
  ((key = Mix(key ^ KeyPart(parts))), ...);
  return key;
}

}  // namespace h5feed::transform
