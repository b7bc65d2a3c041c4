#include "payload_queue.h"

#include <utility>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::python {

PayloadQueue::PutResult PayloadQueue::TryPut(int64_t row, SamplePayload& payload,
                                             std::chrono::milliseconds wait) {
  const int64_t bytes = payload.held_bytes();
  std::unique_lock lock(mutex_);
  const bool room = changed_.wait_for(
      lock, wait, [&] { return closed_ || payloads_.empty() || held_ + bytes <= capacity_; });
  if (closed_) return PutResult::kClosed;
  if (!room) return PutResult::kFull;
  payloads_.insert_or_assign(row, std::move(payload));
  held_ += bytes;
  changed_.notify_all();
  return PutResult::kTaken;
}

SamplePayload PayloadQueue::Take(int64_t row) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return closed_ || payloads_.count(row) != 0; });
  const auto found = payloads_.find(row);
  if (found == payloads_.end()) {
    throw MakeError(ErrorCode::kCancelled, "the sample of row {} never came: writing stopped", row);
  }
  SamplePayload payload = std::move(found->second);
  payloads_.erase(found);
  held_ -= payload.held_bytes();
  changed_.notify_all();
  return payload;
}

void PayloadQueue::Close() {
  std::lock_guard lock(mutex_);
  closed_ = true;
  changed_.notify_all();
}

void PayloadQueue::Clear() {
  std::lock_guard lock(mutex_);
  payloads_.clear();
  held_ = 0;
  changed_.notify_all();
}

int64_t PayloadQueue::held_bytes() const {
  std::lock_guard lock(mutex_);
  return held_;
}

}  // namespace h5feed::python
