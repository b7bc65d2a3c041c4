#include "stored_order.h"

#include <numeric>

#include "sampler/permutation.h"

namespace h5feed::converters {

std::vector<int64_t> StoredOrder(int64_t n, bool shuffle, uint64_t seed) {
  if (shuffle) return sampler::Permutation(n, seed);
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  return order;
}

}  // namespace h5feed::converters
