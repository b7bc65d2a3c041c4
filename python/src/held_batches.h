#pragma once
// The batches whose image (or array field) tensors Python still holds (labels and indices are
// copies that hold nothing; device labels are views only until h5feed/_loader.py has copied
// them). Each holds
// a slot, and the loader assembles a step only once it has a slot for every echo copy of it,
// so holding more than `slots - echo` of them leaves it nowhere to assemble the next batch: a
// wait for it could end only if some other thread freed a tensor. `list(loader)` is the
// classic way to get there. NativeLoader asks CheckNotStarved between its waiting slices and
// raises instead of hanging. (With the GPU stage a held batch holds a device buffer, not a
// slot, and echo copies are made on the device: one buffer a batch.)
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

  // `slots`: the loader's host buffers, LoaderOptions' slots + held_batches.
  HeldBatches(int slots, int echo) : slots_(slots), echo_(echo) {}

  // The owner for the capsules of `batch`: the batch counts as held until all are freed.
  std::shared_ptr<const void> Hold(Batch batch);

  // The awaited batch arrived: forget how long the wait was starved.
  void BatchArrived() { starved_since_.reset(); }

  // Between waiting slices: throws Error(kInvalidArgument) once too few slots for a step have
  // been free for kStarvationLimit without a batch arriving.
  void CheckNotStarved();

  int held() const { return held_->load(); }

 private:
  const int slots_;
  const int echo_;
  int buffers_per_step_ = 1;  // echo_ for host batches, 1 on the device (set by Hold)
  std::shared_ptr<std::atomic<int>> held_ = std::make_shared<std::atomic<int>>(0);
  std::optional<std::chrono::steady_clock::time_point> starved_since_;
};

}  // namespace h5feed::python
