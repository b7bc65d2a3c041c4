#pragma once
// How an epoch is cut into steps: the one rule the reader counts its steps by. Step s of an
// order of R rows holds positions [s * B, min((s + 1) * B, R)) of it, B the batch size; a
// short last step is kept unless drop_last_batch, which keeps floor(R / B) whole steps and
// leaves the rest of the order out. With echo E each loaded step is delivered E times
// (pipeline/echo.h numbers the copies).
//
// Who cuts by it: the loader counts a rank's epoch (R = SamplesPerRank, epoch_order.h: the
// sharding) and finds the step a restored state resumes at (loader/resume_point.h),
// ElasticOrder cuts what a rank gets of an epoch resumed on another world size, EpochPlan cuts
// its order into the steps the assembler loads, and AccessPlan lists the chunks of each of
// those steps and of the next epoch's first rows.

#include <algorithm>
#include <cstdint>
#include <string>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::sampler {

// Plain value; thread-safe to read.
struct EpochSteps {
  int64_t batch_size = 1;
  int64_t rows = 0;    // positions of the order the steps hold (whole batches with drop_last)
  int64_t loaded = 0;  // steps read and assembled: ceil(rows / batch_size)
  int echo = 1;

  // Steps handed to the trainer, echo copies counted.
  int64_t delivered() const { return loaded * echo; }
  // The positions of step `step` (0 <= step < loaded) in the order: [begin, end).
  int64_t begin(int64_t step) const { return step * batch_size; }
  int64_t end(int64_t step) const { return std::min(rows, (step + 1) * batch_size); }
};

// The steps of an order of `rows` rows. Throws Error(kInvalidArgument) for batch_size < 1,
// rows < 0 or echo < 1.
inline EpochSteps CutIntoSteps(int64_t rows, int64_t batch_size, bool drop_last_batch = false,
                               int echo = 1) {
  if (batch_size < 1) {
    throw MakeError(ErrorCode::kInvalidArgument, "batch_size is {}; it must be >= 1", batch_size);
  }
  if (rows < 0 || echo < 1) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "cutting {} rows into steps with echo {}: rows must be >= 0 and echo >= 1",
                    rows, echo);
  }
  EpochSteps steps;
  steps.batch_size = batch_size;
  steps.rows = drop_last_batch ? rows - rows % batch_size : rows;
  // ceil(rows / batch_size), without rows + batch_size - 1, which overflows for a batch size
  // near INT64_MAX (a whole file as one batch).
  steps.loaded = steps.rows / batch_size + (steps.rows % batch_size != 0 ? 1 : 0);
  steps.echo = echo;
  return steps;
}

}  // namespace h5feed::sampler
