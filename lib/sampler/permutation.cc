#include "sampler/permutation.h"

#include <numeric>

namespace h5feed {
namespace {

// GCC and Clang's 128-bit integer on 64-bit targets; __extension__ says the non-standard type
// is meant (-Wpedantic).
__extension__ using Uint128 = unsigned __int128;

}  // namespace

uint64_t SplitMix64::Below(uint64_t bound) {
  // Lemire's multiply-shift with rejection of the few values that would bias the result.
  Uint128 product = static_cast<Uint128>(Next()) * bound;
  uint64_t low = static_cast<uint64_t>(product);
  if (low < bound) {
    uint64_t threshold = (0 - bound) % bound;
    while (low < threshold) {
      product = static_cast<Uint128>(Next()) * bound;
      low = static_cast<uint64_t>(product);
    }
  }
  return static_cast<uint64_t>(product >> 64);
}

std::vector<int64_t> Permutation(int64_t n, uint64_t seed) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  SplitMix64 rng(seed);
  Shuffle(std::span<int64_t>(order), rng);
  return order;
}

}  // namespace h5feed
