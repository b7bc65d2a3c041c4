#pragma once
// How many chunks an order keeps open at once, for the sampler tests: a chunk is open from the
// first to the last position of the order that reads one of its rows. An order whose count is
// at most C reads each chunk once through a cache of C chunks (it never drops a chunk it needs
// again).

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace h5feed::sampler {

inline int64_t MaxOpenChunks(const std::vector<int64_t>& order, int64_t chunk_samples) {
  std::map<int64_t, std::pair<size_t, size_t>> span;  // chunk -> first, last position
  for (size_t i = 0; i < order.size(); ++i) {
    auto [it, inserted] = span.try_emplace(order[i] / chunk_samples, i, i);
    it->second.second = i;
  }
  std::vector<int> delta(order.size() + 1, 0);
  for (auto& [chunk, range] : span) {
    ++delta[range.first];
    --delta[range.second + 1];
  }
  int64_t open = 0, most = 0;
  for (int d : delta) most = std::max(most, open += d);
  return most;
}

}  // namespace h5feed::sampler
