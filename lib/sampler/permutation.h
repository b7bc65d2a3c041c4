#pragma once
// Seeded permutations that are the same on every platform and in every language binding.
//
// std::shuffle and std::uniform_int_distribution are implementation-defined (libstdc++ and
// libc++ give different orders for one seed), so a stored order or an epoch order that must be
// reproducible anywhere uses this generator and this Fisher-Yates instead. The algorithm is
// specified in docs/format.md so other readers can reproduce it.

#include <cstdint>
#include <span>
#include <vector>

#include "transform/random_streams.h"

namespace h5feed {

// The generator (transform/random_streams.h: SplitMix64 with Lemire's bounded draw).
using transform::SplitMix64;

// Shuffles `values` in place: Fisher-Yates from the last element down, j = Below(i + 1).
template <typename T>
void Shuffle(std::span<T> values, SplitMix64& rng) {
  for (size_t i = values.size(); i > 1; --i) {
    size_t j = static_cast<size_t>(rng.Below(i));
    std::swap(values[i - 1], values[j]);
  }
}

// 0..n-1 shuffled with SplitMix64(seed).
std::vector<int64_t> Permutation(int64_t n, uint64_t seed);

}  // namespace h5feed
