// The loader's epoch orders, the next one computed ahead (loader/epoch_orders.h).

#include "loader/epoch_orders.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "sampler/epoch_order.h"

namespace h5feed::loader {
namespace {

const SampleGeometry kGeometry{200, 16};  // 13 chunks
constexpr uint64_t kSeed = 7;

std::vector<int64_t> Reference(const SamplerOptions& sampler, int64_t epoch) {
  return EpochOrder(kGeometry, sampler, ShardOptions{}, kSeed, epoch);
}

std::vector<int64_t> ToVector(std::span<const int64_t> rows) { return {rows.begin(), rows.end()}; }

TEST_CASE("every epoch's order is EpochOrder's, whether it was computed ahead or not") {
  const SamplerOptions sampler = SamplerOptions::Parse("chunks:2");
  EpochOrders orders(kGeometry, sampler, ShardOptions{}, kSeed, 10);
  CHECK(ToVector(orders.ComputeAhead(0)) == Reference(sampler, 0));
  CHECK(orders.TakeAndLookAhead(0) == Reference(sampler, 0));  // the one computed ahead
  CHECK(orders.TakeAndLookAhead(1) == Reference(sampler, 1));  // computed ahead by the last
  CHECK(orders.TakeAndLookAhead(5) == Reference(sampler, 5));  // not: computed now
  orders.ComputeAhead(3);
  CHECK(orders.TakeAndLookAhead(8) == Reference(sampler, 8));  // one ahead for another epoch
}

TEST_CASE("the upcoming start is the next epoch's first window, or two batches if more") {
  const SamplerOptions chunks = SamplerOptions::Parse("chunks:3");
  EpochOrders windowed(kGeometry, chunks, ShardOptions{}, kSeed, 10);
  CHECK(windowed.upcoming_start().empty());  // nothing computed ahead yet
  windowed.TakeAndLookAhead(4);
  const std::vector<int64_t> next = Reference(chunks, 5);
  CHECK(ToVector(windowed.upcoming_start()) ==
        std::vector<int64_t>(next.begin(), next.begin() + 3 * 16));

  const SamplerOptions random = SamplerOptions::Parse("random");
  EpochOrders unwindowed(kGeometry, random, ShardOptions{}, kSeed, 30);
  unwindowed.TakeAndLookAhead(4);
  const std::vector<int64_t> next_random = Reference(random, 5);
  CHECK(ToVector(unwindowed.upcoming_start()) ==
        std::vector<int64_t>(next_random.begin(), next_random.begin() + 2 * 30));

  EpochOrders huge_batches(kGeometry, random, ShardOptions{}, kSeed, 150);
  huge_batches.TakeAndLookAhead(0);
  CHECK(huge_batches.upcoming_start().size() == 200);  // at most the whole order
}

TEST_CASE("no order is computed ahead of the last epoch an int64 numbers") {
  const SamplerOptions sampler = SamplerOptions::Parse("sequential");
  EpochOrders orders(kGeometry, sampler, ShardOptions{}, kSeed, 10);
  const int64_t last = std::numeric_limits<int64_t>::max();
  CHECK(orders.TakeAndLookAhead(last) == Reference(sampler, last));
  CHECK(orders.upcoming_start().empty());
}

TEST_CASE("epoch -1 gets its own order when no order was computed ahead") {
  // -1 once stood for "none computed ahead", and epoch -1 then took that empty order.
  const SamplerOptions sampler = SamplerOptions::Parse("random");
  EpochOrders orders(kGeometry, sampler, ShardOptions{}, kSeed, 10);
  const std::vector<int64_t> order = orders.TakeAndLookAhead(-1);
  CHECK(order.size() == 200);
  CHECK(order == Reference(sampler, -1));
  const std::vector<int64_t> next = Reference(sampler, 0);
  CHECK(ToVector(orders.upcoming_start()) == std::vector<int64_t>(next.begin(), next.begin() + 20));
}

}  // namespace
}  // namespace h5feed::loader
