#include "summary/label_order.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace h5feed::summary {
namespace {

std::optional<LabelOrder> Of(const std::vector<int64_t>& labels) {
  return DescribeLabelOrder(labels);
}

TEST_CASE("class after class in ascending order is sorted: one run per class") {
  const std::optional<LabelOrder> order = Of({0, 0, 0, 1, 1, 2, 2, 2, 2, 2});
  REQUIRE(order.has_value());
  CHECK(order->order == "sorted");
  CHECK(order->Describe() == "sorted by label");
  CHECK(order->runs == 3);
  CHECK(order->classes == 3);
  // N - sum n (n - 1) / N = 10 - (3 x 2 + 2 x 1 + 5 x 4) / 10 = 7.2.
  CHECK(order->random_runs == doctest::Approx(7.2));
  CHECK(order->InRuns());
}

TEST_CASE("one run per class in another order is grouped") {
  const std::optional<LabelOrder> order = Of({7, 7, -3, -3, -3, 5});
  REQUIRE(order.has_value());
  CHECK(order->order == "grouped");
  CHECK(order->runs == 3);
  CHECK(order->InRuns());
}

TEST_CASE("fewer than a quarter of a random order's runs is clustered") {
  // Two class-sorted halves: 0..9 twice, 100 rows each: 20 runs against about 1,901.
  std::vector<int64_t> labels;
  for (int half = 0; half < 2; ++half) {
    for (int64_t c = 0; c < 10; ++c) labels.insert(labels.end(), 100, c);
  }
  const std::optional<LabelOrder> order = Of(labels);
  REQUIRE(order.has_value());
  CHECK(order->order == "clustered");
  CHECK(order->runs == 20);
  CHECK(order->classes == 10);
  CHECK(order->random_runs == doctest::Approx(2000 - 10 * 200.0 * 199 / 2000));
}

TEST_CASE("alternating or shuffled labels are mixed") {
  const std::optional<LabelOrder> alternating = Of({0, 1, 0, 1, 0, 1, 0, 1});
  REQUIRE(alternating.has_value());
  CHECK(alternating->order == "mixed");
  CHECK(alternating->Describe() == "mixed");
  CHECK(alternating->runs == 8);
  CHECK_FALSE(alternating->InRuns());
  // Digits of pi: 19 runs where a random order of these labels has about 17.
  const std::vector<int64_t> shuffled{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4};
  CHECK(Of(shuffled)->order == "mixed");
}

TEST_CASE("no labels, or one class, have no order to describe") {
  CHECK_FALSE(Of({}).has_value());
  CHECK_FALSE(Of({4, 4, 4}).has_value());
  constexpr int64_t kLow = std::numeric_limits<int64_t>::min();
  constexpr int64_t kHigh = std::numeric_limits<int64_t>::max();
  CHECK(Of({kLow, kLow, kHigh})->order == "sorted");
}

}  // namespace
}  // namespace h5feed::summary
