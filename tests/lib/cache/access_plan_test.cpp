#include "cache/access_plan.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "h5feed/error.h"
#include "sampler/epoch_order.h"

namespace h5feed::cache {
namespace {

std::vector<int64_t> ToVector(std::span<const int64_t> s) { return {s.begin(), s.end()}; }

// NextUse by scanning every step, the definition the binary search must agree with.
int64_t NextUseByScan(const std::vector<int64_t>& order, int64_t batch, int64_t k, int64_t chunk,
                      int64_t step) {
  for (size_t i = static_cast<size_t>(std::max<int64_t>(step, 0) * batch); i < order.size(); ++i) {
    if (order[i] / k == chunk) return static_cast<int64_t>(i) / batch;
  }
  return AccessPlan::kNever;
}

TEST_CASE("a plan lists the distinct chunks of every step in ascending order") {
  // Chunks of 2 rows; batches of 4 rows.
  const std::vector<int64_t> order = {7, 0, 6, 1, 2, 3, 4, 5, 1, 0};
  const AccessPlan plan(order, 4, ChunkRows(8, 2));
  CHECK(plan.steps() == 3);
  CHECK(plan.chunk_count() == 4);
  CHECK(ToVector(plan.chunks_of(0)) == std::vector<int64_t>{0, 3});
  CHECK(ToVector(plan.chunks_of(1)) == std::vector<int64_t>{1, 2});
  // The last step is short: rows 1 and 0 only.
  CHECK(ToVector(plan.chunks_of(2)) == std::vector<int64_t>{0});
  CHECK(plan.touches() == 5);
  CHECK(plan.chunks_of(-1).empty());
  CHECK(plan.chunks_of(3).empty());
}

TEST_CASE("rows following the epoch start steps of their own after the epoch's") {
  // Chunks of 2 rows; batches of 4 rows. The epoch's last step is short (rows 1 and 0); the
  // next epoch's first rows must not be merged into it.
  const std::vector<int64_t> order = {7, 0, 6, 1, 2, 3, 4, 5, 1, 0};
  const std::vector<int64_t> following = {5, 4, 3, 2, 9, 8};
  const AccessPlan plan(order, 4, ChunkRows(10, 2), following);
  CHECK(plan.epoch_steps() == 3);
  CHECK(plan.steps() == 5);
  CHECK(ToVector(plan.chunks_of(2)) == std::vector<int64_t>{0});
  CHECK(ToVector(plan.chunks_of(3)) == std::vector<int64_t>{1, 2});
  CHECK(ToVector(plan.chunks_of(4)) == std::vector<int64_t>{4});
  // The cache sees chunk 4 needed again after the epoch, and chunk 3 never.
  CHECK(plan.NextUse(4, 0) == 4);
  CHECK(plan.NextUse(2, 2) == 3);
  CHECK(plan.NextUse(3, 1) == AccessPlan::kNever);
  // Without following rows the plan is the epoch's alone.
  const AccessPlan alone(order, 4, ChunkRows(10, 2));
  CHECK(alone.epoch_steps() == alone.steps());
  CHECK(alone.NextUse(4, 0) == AccessPlan::kNever);
  // A following row outside the dataset is refused like one of the order.
  CHECK_THROWS_AS(AccessPlan(order, 4, ChunkRows(10, 2), std::vector<int64_t>{10}), Error);
}

TEST_CASE("NextUse finds the first step at or after the given one that reads the chunk") {
  const std::vector<int64_t> order = {7, 0, 6, 1, 2, 3, 4, 5, 1, 0};
  const AccessPlan plan(order, 4, ChunkRows(10, 2));
  CHECK(plan.NextUse(0, 0) == 0);
  CHECK(plan.NextUse(0, 1) == 2);
  CHECK(plan.NextUse(0, 2) == 2);
  CHECK(plan.NextUse(0, 3) == AccessPlan::kNever);
  CHECK(plan.NextUse(3, 1) == AccessPlan::kNever);
  CHECK(plan.NextUse(2, -5) == 1);
  // Chunk 4 exists but no step reads it; chunks outside the dataset are never read either.
  CHECK(plan.NextUse(4, 0) == AccessPlan::kNever);
  CHECK(plan.NextUse(5, 0) == AccessPlan::kNever);
  CHECK(plan.NextUse(-1, 0) == AccessPlan::kNever);
}

TEST_CASE("an empty order gives a plan with no steps") {
  const AccessPlan plan(std::span<const int64_t>(), 8, ChunkRows(12, 4));
  CHECK(plan.steps() == 0);
  CHECK(plan.touches() == 0);
  CHECK(plan.NextUse(1, 0) == AccessPlan::kNever);
}

TEST_CASE("a plan built from every sampler's epoch order agrees with a brute-force scan") {
  using Kind = SamplerOptions::Kind;
  const sampler::SampleGeometry geometry{1000, 16};  // 63 chunks, the last one short
  const int64_t chunks = (geometry.samples() + geometry.max_rows() - 1) / geometry.max_rows();
  for (const SamplerOptions sampler :
       {SamplerOptions{Kind::kSequential, 1}, SamplerOptions{Kind::kRandom, 1},
        SamplerOptions{Kind::kChunks, 4}, SamplerOptions{Kind::kQuasi, 3}}) {
    for (const int64_t batch : {1, 7, 32}) {
      CAPTURE(sampler.ToString());
      CAPTURE(batch);
      const std::vector<int64_t> order =
          sampler::EpochOrder(geometry, sampler, ShardOptions{}, 42, 3);
      const AccessPlan plan(order, batch,
                            ChunkRows((geometry.max_rows()) * (chunks), geometry.max_rows()));
      REQUIRE(plan.steps() == (static_cast<int64_t>(order.size()) + batch - 1) / batch);
      int64_t touches = 0;
      for (int64_t s = 0; s < plan.steps(); ++s) {
        std::set<int64_t> expected;
        for (int64_t i = s * batch; i < std::min<int64_t>((s + 1) * batch, 1000); ++i) {
          expected.insert(order[static_cast<size_t>(i)] / geometry.max_rows());
        }
        REQUIRE(ToVector(plan.chunks_of(s)) ==
                std::vector<int64_t>(expected.begin(), expected.end()));
        touches += static_cast<int64_t>(expected.size());
      }
      CHECK(plan.touches() == touches);
      for (int64_t c = 0; c < chunks; ++c) {
        for (int64_t s = 0; s <= plan.steps(); s += 3) {
          REQUIRE(plan.NextUse(c, s) == NextUseByScan(order, batch, geometry.max_rows(), c, s));
        }
      }
    }
  }
}

TEST_CASE("invalid plan arguments are rejected as invalid arguments") {
  const std::vector<int64_t> order = {0, 1, 2};
  auto code_of = [&](std::span<const int64_t> rows, int64_t batch, int64_t k, int64_t chunks) {
    try {
      AccessPlan(rows, batch, ChunkRows((k) * (chunks), k));
    } catch (const Error& e) {
      return e.code();
    }
    return ErrorCode::kInternal;  // nothing thrown
  };
  CHECK(code_of(order, 0, 1, 3) == ErrorCode::kInvalidArgument);
  CHECK(code_of(order, 1, 0, 3) == ErrorCode::kInvalidArgument);
  CHECK(code_of(order, 1, 1, -1) == ErrorCode::kInvalidArgument);
  // Row 2 lies in chunk 2 of a 2-chunk dataset; a negative row is never valid.
  CHECK(code_of(order, 1, 1, 2) == ErrorCode::kInvalidArgument);
  const std::vector<int64_t> negative = {0, -1};
  CHECK(code_of(negative, 1, 1, 2) == ErrorCode::kInvalidArgument);
  CHECK_NOTHROW(AccessPlan(order, 1, ChunkRows(3, 1)));
}

}  // namespace
}  // namespace h5feed::cache
