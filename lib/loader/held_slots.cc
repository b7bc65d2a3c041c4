#include "loader/held_slots.h"

#include <string>
#include <utility>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::loader {
namespace {

// Kept by one delivered batch: counts it while it lives (copies of the Batch share it).
struct HeldSlot {
  explicit HeldSlot(std::shared_ptr<std::atomic<int>> held_count) : count(std::move(held_count)) {
    count->fetch_add(1);
  }
  ~HeldSlot() { count->fetch_sub(1); }
  HeldSlot(const HeldSlot&) = delete;
  HeldSlot& operator=(const HeldSlot&) = delete;

  std::shared_ptr<std::atomic<int>> count;
};

}  // namespace

std::shared_ptr<const void> HeldSlots::Hold() { return std::make_shared<const HeldSlot>(held_); }

void HeldSlots::CheckNotStarved(std::chrono::steady_clock::time_point now) {
  const int held_now = held_->load();
  if (slots_ - held_now >= slots_per_step_) {
    starved_since_.reset();
    return;
  }
  if (!starved_since_) starved_since_ = now;
  if (now - *starved_since_ < kStarvationLimit) return;
  starved_since_.reset();
  throw MakeError(ErrorCode::kInvalidArgument,
                  "h5feed::Loader::Next: the trainer still holds {} batches delivered earlier, and "
                  "each holds one of the loader's {} slots (its images, labels, indices and array "
                  "fields are the slot's memory), so after {} s of waiting the next batch, which "
                  "needs {} free slot(s), still cannot be assembled. Release the batches you are "
                  "done with (copy what you keep beyond a step: labels(), indices(), the images), "
                  "or open the Loader with more LoaderOptions::slots than the batches it keeps",
                  held_now, slots_, kStarvationLimit.count(), slots_per_step_);
}

}  // namespace h5feed::loader
