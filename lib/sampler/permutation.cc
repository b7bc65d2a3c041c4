#include "sampler/permutation.h"

#include <numeric>

namespace h5feed {

std::vector<int64_t> Permutation(int64_t n, uint64_t seed) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  SplitMix64 rng(seed);
  Shuffle(std::span<int64_t>(order), rng);
  return order;
}

}  // namespace h5feed
