#pragma once
// Finished batches on their way from the pipeline's last stage to the consumer, in step
// order, followed by one terminal event: the end of the epoch or the error that stopped it.
//
// Push never blocks the pipeline: every batch in the queue holds a host slot, so the queue is
// bounded by the number of slots (plus the one terminal event) by construction.
// Thread-safety: one producer and one consumer at a time, any threads (internal mutex).

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <variant>

#include "memory/slot_layout.h"
#include "memory/slot_pool.h"

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
};

struct EndOfEpoch {};

using PipelineEvent = std::variant<AssembledBatch, EndOfEpoch, std::exception_ptr>;

class BatchQueue {
 public:
  void Push(PipelineEvent event) {
    {
      std::lock_guard lock(mutex_);
      events_.push_back(std::move(event));
    }
    ready_.notify_one();
  }

  // Whether an event is waiting, waiting up to `timeout` for one (Pop then returns at once).
  bool WaitFor(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return ready_.wait_for(lock, timeout, [&] { return !events_.empty(); });
  }

  // The oldest event, waiting until there is one.
  PipelineEvent Pop() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return !events_.empty(); });
    PipelineEvent event = std::move(events_.front());
    events_.pop_front();
    return event;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<PipelineEvent> events_;  // guarded by mutex_
};

}  // namespace h5feed::pipeline
