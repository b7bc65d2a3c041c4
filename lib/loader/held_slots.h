#pragma once
// The host slots a trainer holds through the batches Next delivered, and the wait for the next
// batch that only the trainer could end. Each delivered host batch holds its slot until its last
// copy goes (h5feed::Batch), and the assembler fills a step only once it has a slot for each of
// its echo copies: a trainer that keeps more than `slots - echo` batches (every batch of an
// epoch in a vector, say) leaves it none, and a wait for the next batch could then end only if
// another thread of the trainer let one go. Loader::Next waits that long (kStarvationLimit) and
// then throws instead of hanging. (With the GPU stage a delivered batch holds a device buffer,
// not a slot: DeviceFeed refuses at once when the trainer holds them all.)
//
// Thread-safety: Hold, CheckNotStarved and BatchArrived on the trainer's thread (the Loader's);
// the count drops on whichever thread releases a batch's last copy.

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>

namespace h5feed::loader {

class HeldSlots {
 public:
  // How long every slot may stay held while a batch is awaited before that is an error: long
  // enough for another thread of the trainer to release a batch it is done with. The Python
  // module waits as long (python/src/held_batches.h).
  static constexpr std::chrono::seconds kStarvationLimit{5};

  // `slots`: the loader's host slots (LoaderOptions::slots + held_batches); `slots_per_step`:
  // those one step takes at once (its echo copies).
  HeldSlots(int slots, int slots_per_step) : slots_(slots), slots_per_step_(slots_per_step) {}

  // What a delivered batch keeps (Batch::Impl::held): it counts as held until that goes.
  std::shared_ptr<const void> Hold();

  // Between slices of a wait for the next batch, at `now`: throws Error(kInvalidArgument), saying
  // how many batches are held and what to do, once fewer than slots_per_step slots have been
  // free for kStarvationLimit.
  void CheckNotStarved(std::chrono::steady_clock::time_point now);

  // The awaited batch arrived (or the run ended): forget how long the wait was starved.
  void BatchArrived() { starved_since_.reset(); }

  int held() const { return held_->load(); }

 private:
  const int slots_;
  const int slots_per_step_;
  std::shared_ptr<std::atomic<int>> held_ = std::make_shared<std::atomic<int>>(0);
  std::optional<std::chrono::steady_clock::time_point> starved_since_;
};

}  // namespace h5feed::loader
