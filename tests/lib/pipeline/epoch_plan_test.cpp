#include "pipeline/epoch_plan.h"

#include <doctest/doctest.h>

#include <numeric>
#include <vector>

#include "h5feed/error.h"

namespace h5feed::pipeline {
namespace {

std::vector<int64_t> Iota(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

TEST_CASE("an epoch is cut into batches, the short last one kept") {
  EpochPlan plan(3, Iota(10), 4, false, ChunkRows(10, 5));
  CHECK(plan.epoch() == 3);
  CHECK(plan.steps() == 3);
  CHECK(plan.rows() == 10);
  CHECK(std::vector<int64_t>(plan.rows_of(0).begin(), plan.rows_of(0).end()) ==
        std::vector<int64_t>{0, 1, 2, 3});
  CHECK(plan.rows_of(2).size() == 2);
  CHECK(plan.rows_of(3).empty());
  CHECK(plan.access()->steps() == 3);
  CHECK(std::vector<int64_t>(plan.access()->chunks_of(1).begin(),
                             plan.access()->chunks_of(1).end()) == std::vector<int64_t>{0, 1});
}

TEST_CASE("drop_last_batch leaves only whole batches, for the cache's plan too") {
  EpochPlan plan(0, Iota(10), 4, true, ChunkRows(10, 5));
  CHECK(plan.steps() == 2);
  CHECK(plan.rows() == 8);
  CHECK(plan.access()->steps() == 2);
  CHECK(plan.access()->NextUse(1, 2) == cache::AccessPlan::kNever);
  EpochPlan exact(0, Iota(8), 4, true, ChunkRows(10, 5));
  CHECK(exact.steps() == 2);
}

TEST_CASE("a batch size below one or rows outside the dataset are refused") {
  CHECK_THROWS_AS(EpochPlan(0, Iota(4), 0, false, ChunkRows(4, 2)), Error);
  CHECK_THROWS_AS(EpochPlan(0, Iota(5), 2, false, ChunkRows(4, 2)), Error);  // row 4 is in chunk 2
}

}  // namespace
}  // namespace h5feed::pipeline
