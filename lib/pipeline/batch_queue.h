#pragma once
// Finished batches on their way from the assembler to the consumer, in step order, followed by the
// run's end (run_end.h): the end of the epoch or the error that stopped it. Once the consumer has
// taken every batch, Pop returns the end, at once and at every later call; batches pushed after the
// end are dropped (the steps after a failed one).
//
// Push never blocks the assembler: every batch in the queue holds a host slot, so the queue is
// bounded by the number of slots by construction.
// Thread-safety: one producer and one consumer at a time, any threads (internal mutex, which
// also guards the RunEnd).

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <variant>

#include "memory/slot_layout.h"
#include "memory/slot_pool.h"
#include "pipeline/run_end.h"

namespace h5feed::pipeline {

// One delivered batch: rows [0, rows) of the arrays in `view`, which lies inside `lease`.
struct AssembledBatch {
  memory::SlotLease lease;
  memory::SlotView view;
  int64_t epoch = 0;
  int64_t step = 0;         // delivered step: loaded_step * echo + copy
  int64_t loaded_step = 0;  // the epoch plan's step (what the cache was told)
  int copy = 0;             // echo copy, 0 = as loaded
  int64_t rows = 0;         // may be below the step's rows when corrupt chunks were skipped
  // What AssemblerOptions::make_extras made for this batch; null without it.
  std::shared_ptr<const void> extras;
};

using PipelineEvent = std::variant<AssembledBatch, EndOfEpoch, std::exception_ptr>;

class BatchQueue {
 public:
  // Dropped (its slot returned) once the run has ended.
  void Push(AssembledBatch batch) {
    {
      std::lock_guard lock(mutex_);
      if (end_.reached()) return;
      batches_.push_back(std::move(batch));
    }
    ready_.notify_one();
  }

  // Ends the run with `end` (EndOfEpoch or an error) unless it already ended; returns whether
  // this call ended it.
  template <typename Reason>
  bool End(Reason end) {
    {
      std::lock_guard lock(mutex_);
      if (!end_.Record(std::move(end))) return false;
    }
    ready_.notify_one();
    return true;
  }

  // Whether Pop returns the run's end at once: the run ended and every batch was taken.
  bool ended() const {
    std::lock_guard lock(mutex_);
    return batches_.empty() && end_.reached();
  }

  // Whether Pop would return at once, waiting up to `timeout` for it to.
  bool WaitFor(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return ready_.wait_for(lock, timeout, [&] { return !batches_.empty() || end_.reached(); });
  }

  // The oldest batch, or once none is left the run's end, waiting until there is either.
  PipelineEvent Pop() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return !batches_.empty() || end_.reached(); });
    if (batches_.empty()) return end_.As<PipelineEvent>();
    PipelineEvent batch = std::move(batches_.front());
    batches_.pop_front();
    return batch;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<AssembledBatch> batches_;  // guarded by mutex_
  RunEnd end_;                          // guarded by mutex_
};

}  // namespace h5feed::pipeline
