// The random-stream registry and its one key recipe (random_streams.h): SplitMix64's published
// outputs, the documented chain, and keys that differ whenever one part differs.
#include "transform/random_streams.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <set>

namespace h5feed::transform {
namespace {

TEST_CASE("Mix is one step of SplitMix64 with its published outputs") {
  // The reference implementation (Vigna's splitmix64.c) from state 0: the first two outputs.
  CHECK(Mix(0) == 0xe220a8397b1dcdafULL);
  CHECK(Mix(kSplitMixGamma) == 0x6e789e6aa1b965f4ULL);
}

TEST_CASE("a stream key is Mix chained over the seed and each part in order") {
  const uint64_t by_hand = Mix(Mix(Mix(Mix(42) ^ 3u) ^ KeyPart(RandomStream::kChunkOrder)) ^ 7u);
  CHECK(StreamKey(42, int64_t{3}, RandomStream::kChunkOrder, int64_t{7}) == by_hand);
  CHECK(StreamKey(42) == Mix(42));
  // Negative parts (epochs may be negative) enter as two's complement.
  CHECK(StreamKey(1, int64_t{-1}) == Mix(Mix(1) ^ ~uint64_t{0}));
  CHECK(StreamKey(1, -1) == StreamKey(1, int64_t{-1}));
}

TEST_CASE("keys that differ in one part always differ") {
  std::set<uint64_t> seen;
  int keys = 0;
  for (uint64_t seed = 0; seed < 4; ++seed) {
    for (int64_t epoch = -2; epoch < 6; ++epoch) {
      for (uint64_t stream = 1; stream <= 5; ++stream) {
        for (int64_t lane = 0; lane < 16; ++lane) {
          seen.insert(StreamKey(seed, epoch, static_cast<RandomStream>(stream), lane));
          ++keys;
        }
      }
    }
  }
  CHECK(static_cast<int>(seen.size()) == keys);
}

}  // namespace
}  // namespace h5feed::transform
