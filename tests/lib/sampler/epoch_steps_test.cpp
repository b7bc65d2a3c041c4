#include "sampler/epoch_steps.h"

#include <doctest/doctest.h>

#include <cstdint>

#include "h5feed/error.h"

namespace h5feed {
namespace {

TEST_CASE("an order is cut into batches, the short last one kept") {
  const EpochSteps steps = CutIntoSteps(10, 4);
  CHECK(steps.rows == 10);
  CHECK(steps.loaded == 3);
  CHECK(steps.delivered() == 3);
  CHECK(steps.begin(0) == 0);
  CHECK(steps.end(0) == 4);
  CHECK(steps.begin(2) == 8);
  CHECK(steps.end(2) == 10);  // the short last step
}

TEST_CASE("drop_last_batch keeps only whole batches") {
  const EpochSteps steps = CutIntoSteps(10, 4, true);
  CHECK(steps.rows == 8);
  CHECK(steps.loaded == 2);
  CHECK(steps.end(1) == 8);
  CHECK(CutIntoSteps(8, 4, true).loaded == 2);  // nothing to drop
  CHECK(CutIntoSteps(3, 4, true).loaded == 0);  // not one whole batch
  CHECK(CutIntoSteps(3, 4, false).loaded == 1);
}

TEST_CASE("with echo every loaded step is delivered that many times") {
  const EpochSteps steps = CutIntoSteps(10, 4, false, 3);
  CHECK(steps.loaded == 3);
  CHECK(steps.delivered() == 9);
}

TEST_CASE("the steps cover the order exactly once, in order") {
  for (int64_t rows = 0; rows <= 40; ++rows) {
    for (int64_t batch = 1; batch <= 12; ++batch) {
      for (bool drop : {false, true}) {
        CAPTURE(rows);
        CAPTURE(batch);
        CAPTURE(drop);
        const EpochSteps steps = CutIntoSteps(rows, batch, drop);
        int64_t next = 0;
        for (int64_t s = 0; s < steps.loaded; ++s) {
          CHECK(steps.begin(s) == next);
          CHECK(steps.end(s) > steps.begin(s));
          CHECK(steps.end(s) - steps.begin(s) <= batch);
          if (drop) CHECK(steps.end(s) - steps.begin(s) == batch);
          next = steps.end(s);
        }
        CHECK(next == steps.rows);
        CHECK(steps.rows == (drop ? rows / batch * batch : rows));
      }
    }
  }
}

TEST_CASE("a batch size below one, negative rows or an echo below one are refused") {
  CHECK_THROWS_AS(CutIntoSteps(10, 0), Error);
  CHECK_THROWS_AS(CutIntoSteps(-1, 4), Error);
  CHECK_THROWS_AS(CutIntoSteps(10, 4, false, 0), Error);
  try {
    CutIntoSteps(10, 0);
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace h5feed
