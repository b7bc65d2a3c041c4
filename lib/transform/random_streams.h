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
  // chunks, quasi: the shuffle within a rank's block (lane = rank; in an elastic stretch j >= 1,
  // j * 2^32 + rank: sampler/elastic_order.h)
  kLocalShuffle = 3,
  // pipeline/echo.h: StreamKey(seed, epoch, kEcho, loaded step, copy).
  kEcho = 4,
  // augment.h: a sample view's flip and zero-padded crop offsets,
  // StreamKey(seed, epoch, kAugment, row, echo copy, view).
  kAugment = 5,
  // resized_crop.h: a sample view's random resized crop box (its up to 10 attempts),
  // StreamKey(seed, epoch, kResizedCrop, row, echo copy, view). Its own stream, so the number
  // of attempts a box takes never shifts the flip's draw.
  kResizedCrop = 6,
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

// The high 64 bits of a x b.
H5FEED_HOST_DEVICE inline uint64_t MultiplyHigh(uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  __extension__ using Uint128 = unsigned __int128;  // GCC and Clang on 64-bit targets
  return static_cast<uint64_t>((static_cast<Uint128>(a) * b) >> 64);
#endif
}

// SplitMix64 (Steele, Lea, Flood 2014): a tiny, well-mixed 64-bit generator, seeded with a
// stream key; Next() is Finalize(state += gamma), so SplitMix64(x).Next() == Mix(x). The same
// draws on the host and the device. Deterministic for a seed, not thread-safe (one per thread,
// task or sample).
class SplitMix64 {
 public:
  H5FEED_HOST_DEVICE explicit SplitMix64(uint64_t seed) : state_(seed) {}
  H5FEED_HOST_DEVICE uint64_t Next() { return SplitMixFinalize(state_ += kSplitMixGamma); }
  // A uniform integer in [0, bound), bound > 0, without modulo bias (Lemire 2019: a
  // multiply-shift, rejecting the few products that would bias it).
  H5FEED_HOST_DEVICE uint64_t Below(uint64_t bound) {
    uint64_t x = Next();
    uint64_t low = x * bound;
    if (low < bound) {
      const uint64_t threshold = (0 - bound) % bound;
      while (low < threshold) {
        x = Next();
        low = x * bound;
      }
    }
    return MultiplyHigh(x, bound);
  }
  // A uniform double in [0, 1): the top 53 bits of Next() x 2^-53.
  H5FEED_HOST_DEVICE double Uniform() {
    return static_cast<double>(Next() >> 11) * (1.0 / 9007199254740992.0);
  }

 private:
  uint64_t state_;
};

}  // namespace h5feed::transform
