#include "sampler/permutation.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>

namespace h5feed::sampler {
namespace {

TEST_CASE("a permutation holds every index exactly once") {
  for (int64_t n : {0, 1, 2, 7, 1000}) {
    std::vector<int64_t> order = Permutation(n, 42);
    std::sort(order.begin(), order.end());
    std::vector<int64_t> expected(static_cast<size_t>(n));
    std::iota(expected.begin(), expected.end(), int64_t{0});
    CHECK(order == expected);
  }
}

TEST_CASE("the same seed gives the same order and another seed another order") {
  CHECK(Permutation(1000, 7) == Permutation(1000, 7));
  CHECK(Permutation(1000, 7) != Permutation(1000, 8));
}

TEST_CASE("the generator's first outputs match the SplitMix64 reference values") {
  // Reference values of SplitMix64 seeded with 1234567 (Vigna's splitmix64.c).
  SplitMix64 rng(1234567);
  CHECK(rng.Next() == 6457827717110365317ULL);
  CHECK(rng.Next() == 3203168211198807973ULL);
  CHECK(rng.Next() == 9817491932198370423ULL);
}

TEST_CASE("bounded draws are uniform") {
  SplitMix64 rng(3);
  std::vector<int> counts(10, 0);
  const int draws = 100000;
  for (int i = 0; i < draws; ++i) ++counts[rng.Below(10)];
  for (int c : counts) CHECK(std::abs(c - draws / 10) < 500);  // ~5 sigma
  for (int i = 0; i < 1000; ++i) CHECK(rng.Below(1) == 0);
}

TEST_CASE("every position receives every value about equally often") {
  // A biased shuffle (e.g. j drawn from [0, n) instead of [0, i]) fails this.
  const int n = 4, trials = 40000;
  std::vector<std::vector<int>> counts(n, std::vector<int>(n, 0));
  for (int t = 0; t < trials; ++t) {
    std::vector<int64_t> order = Permutation(n, static_cast<uint64_t>(t));
    for (int pos = 0; pos < n; ++pos) ++counts[pos][order[pos]];
  }
  for (auto& row : counts)
    for (int c : row) CHECK(std::abs(c - trials / n) < 5 * 87);  // sd = sqrt(40000*3/16)
}

}  // namespace
}  // namespace h5feed::sampler
