#include "held_batches.h"

#include <string>
#include <utility>

#include "h5feed/error.h"
#include "make_error.h"
#include "opening_process.h"

namespace h5feed::python {
namespace {

// Owned by the capsules of one batch; the last one freed returns the count, and the slot to
// the loader, unless it is freed in a forked child, which abandons it (opening_process.h).
struct HeldBatch {
  HeldBatch(Batch held_batch, std::shared_ptr<std::atomic<int>> held_count)
      : batch(std::move(held_batch)), count(std::move(held_count)) {
    count->fetch_add(1);
  }
  ~HeldBatch() {
    count->fetch_sub(1);
    if (delivered_in.IsForkedChild()) OpeningProcess::Abandon(batch);
  }
  HeldBatch(const HeldBatch&) = delete;
  HeldBatch& operator=(const HeldBatch&) = delete;

  Batch batch;
  std::shared_ptr<std::atomic<int>> count;
  const OpeningProcess delivered_in;
};

}  // namespace

std::shared_ptr<const void> HeldBatches::Hold(Batch batch) {
  buffers_per_step_ = batch.image_tensor().cuda_device >= 0 ? 1 : echo_;
  return std::make_shared<const HeldBatch>(std::move(batch), held_);
}

void HeldBatches::CheckNotStarved() {
  const int held_now = held_->load();
  if (slots_ - held_now >= buffers_per_step_) {
    starved_since_.reset();
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (!starved_since_) starved_since_ = now;
  if (now - *starved_since_ < kStarvationLimit) return;
  starved_since_.reset();
  throw MakeError(
      ErrorCode::kInvalidArgument,
      "h5feed.Loader: the image tensors of {} earlier batches are still alive and hold the buffers "
      "the next batch needs (a batch's images and array fields are the loader's buffers, not "
      "copies; its labels and indices are copies and hold nothing), so after {} s of waiting the "
      "next batch still cannot be assembled. Keep .clone()s of the images and fields you need "
      "beyond a step, or open the Loader with more slots",
      held_now, kStarvationLimit.count());
}

}  // namespace h5feed::python
