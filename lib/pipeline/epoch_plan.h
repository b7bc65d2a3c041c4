#pragma once
// One rank's epoch cut into steps: the rows each loaded batch holds, and the AccessPlan the
// chunk cache evicts and prefetches by. Built once per SetEpoch / Restore (O(rows)); the
// assembler, the cache and the loader then share it read-only.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "cache/access_plan.h"
#include "sampler/epoch_steps.h"

namespace h5feed::pipeline {

// Immutable after construction; thread-safe to read.
class EpochPlan {
 public:
  // `order`: the rows this rank visits in `epoch`, in order (sampler/epoch_order.h), cut into
  // steps by CutIntoSteps (sampler/epoch_steps.h): step s holds rows
  // order[s * batch_size .. (s + 1) * batch_size); a short last step is kept unless
  // drop_last_batch, which truncates the order to whole batches. `next_rows`: the
  // first rows of the epoch expected next, which the access plan (not the steps) carries on
  // with, so the cache loads them while this epoch ends (AccessPlan, `following`). Throws
  // Error(kInvalidArgument) for batch_size < 1 or a row outside the chunks.
  EpochPlan(int64_t epoch, std::vector<int64_t> order, int64_t batch_size, bool drop_last_batch,
            const ChunkRows& chunks, std::span<const int64_t> next_rows = {});

  int64_t epoch() const { return epoch_; }
  int64_t batch_size() const { return steps_.batch_size; }
  // Loaded batches, echoes not counted.
  int64_t steps() const { return steps_.loaded; }
  int64_t rows() const { return steps_.rows; }
  // The rows of step s (batch_size of them, fewer for a short last step).
  std::span<const int64_t> rows_of(int64_t step) const;
  // What ChunkCache::SetPlan takes: steps() steps, then those of next_rows.
  const std::shared_ptr<const cache::AccessPlan>& access() const { return access_; }

 private:
  int64_t epoch_;
  sampler::EpochSteps steps_;
  std::vector<int64_t> order_;  // truncated to steps_.rows
  std::shared_ptr<const cache::AccessPlan> access_;
};

}  // namespace h5feed::pipeline
