#pragma once
// The future, as the sampler knows it: which chunks each step (batch) of an epoch reads. The
// cache uses it to evict the chunk whose next use is farthest away (Belady's optimal policy,
// exact here because the order is known) and to prefetch what the next steps need.

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "chunk_rows.h"

namespace h5feed::cache {

// Two compressed-sparse-row tables over the same (step, chunk) pairs: step -> its distinct
// chunks, and chunk -> the steps that read it. Memory is O(steps + chunks + touches), where a
// touch is one distinct chunk of one step: for 50,000 samples in chunks of 64 read chunks:8 in
// batches of 256 that is ~196 steps x ~9 chunks, a few tens of KiB, against ~400 KiB for the
// order itself. NextUse is a binary search over the steps of one chunk (O(log touches of c)).
//
// Immutable after construction; thread-safe to read.
class AccessPlan {
 public:
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

  // `order`: the rows of one epoch in visiting order; step s covers rows
  // order[s * batch_size .. min((s + 1) * batch_size, order.size())) (the last step may be
  // short). Row r lives in chunk chunks.chunk_of(r). `following`: rows read after the epoch
  // (the next epoch's first steps), planned as steps epoch_steps() .. steps() - 1 in the same
  // way, so that the cache can load them while the epoch ends. Throws Error(kInvalidArgument)
  // when batch_size is below 1 or a row lies outside [0, chunks.samples()).
  AccessPlan(std::span<const int64_t> order, int64_t batch_size, const ChunkRows& chunks,
             std::span<const int64_t> following = {});

  // All steps, the epoch's and the following ones.
  int64_t steps() const;
  // The steps of `order` alone.
  int64_t epoch_steps() const { return epoch_steps_; }
  int64_t chunk_count() const;
  // The number of (step, distinct chunk) pairs: the chunk reads of an epoch with a cache that
  // holds only the chunks of one step, and the size of each CSR table.
  int64_t touches() const;
  // The distinct chunks step s reads, ascending. Empty for a step outside [0, steps()).
  std::span<const int64_t> chunks_of(int64_t step) const;
  // The first step >= `step` that reads `chunk`, or kNever (also for a chunk outside
  // [0, chunk_count())).
  int64_t NextUse(int64_t chunk, int64_t step) const;

 private:
  std::vector<int64_t> step_offsets_;  // CSR: chunks of step s are step_chunks_[offsets[s]..]
  std::vector<int64_t> step_chunks_;
  std::vector<int64_t> chunk_offsets_;  // CSR: steps reading chunk c, ascending
  std::vector<int64_t> chunk_steps_;
  int64_t epoch_steps_ = 0;
};

}  // namespace h5feed::cache
