#include "sampler/permutation.h"

#include <numeric>

namespace h5feed {

uint64_t SplitMix64::Below(uint64_t bound) {
  // Lemire's multiply-shift with rejection of the few values that would bias the result.
  unsigned __int128 product = static_cast<unsigned __int128>(Next()) * bound;
  uint64_t low = static_cast<uint64_t>(product);
  if (low < bound) {
    uint64_t threshold = (0 - bound) % bound;
    while (low < threshold) {
      product = static_cast<unsigned __int128>(Next()) * bound;
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
