#pragma once
// The batches whose image tensors Python still holds (labels and indices are copies that hold
// nothing; device labels are views only until h5feed/_loader.py has copied them). Each holds
// a slot, so holding `slots` of them leaves the loader nowhere to assemble the next batch: a
// wait for it could end only if some other thread freed a tensor. `list(loader)` is the
// classic way to get there. NativeLoader asks CheckNotStarved between its waiting slices and
// raises instead of hanging.
//
// Thread-safety: Hold, CheckNotStarved and BatchArrived from the iterating thread; the count
// drops from whichever thread frees the last tensor of a batch (torch may free on any thread).

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>

#include "h5feed/loader.h"

namespace h5feed::python {

class HeldBatches {
 public:
  // How long every slot may stay held while a batch is awaited before that is an error: long
  // enough for another thread of the trainer to free a batch it is done with.
  static constexpr std::chrono::seconds kStarvationLimit{5};

  explicit HeldBatches(int slots) : slots_(slots) {}

  // The owner for the capsules of `batch`: the batch counts as held until all are freed.
  std::shared_ptr<const void> Hold(Batch batch);

  // The awaited batch arrived: forget how long the wait was starved.
  void BatchArrived() { starved_since_.reset(); }

  // Between waiting slices: throws Error(kInvalidArgument) once every slot has been held for
  // kStarvationLimit without a batch arriving.
  void CheckNotStarved();

  int held() const { return held_->load(); }

 private:
  const int slots_;
  std::shared_ptr<std::atomic<int>> held_ = std::make_shared<std::atomic<int>>(0);
  std::optional<std::chrono::steady_clock::time_point> starved_since_;
};

}  // namespace h5feed::python
