#include "memory/slot_pool.h"

#include <condition_variable>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::memory {

struct SlotPool::Shared {
  Shared(int count, size_t bytes_per_slot, std::shared_ptr<HostAllocator> host_allocator)
      : allocator(std::move(host_allocator)), slots(count), slot_bytes(bytes_per_slot) {
    base = static_cast<uint8_t*>(allocator->Allocate(total_bytes()));
    free.reserve(static_cast<size_t>(slots));
    // Highest index at the bottom of the stack: slot 0 is leased first, and a freed slot is
    // leased again before the others (LIFO), so a slow trainer keeps touching warm pages.
    for (int i = slots - 1; i >= 0; --i) free.push_back(i);
  }
  ~Shared() { allocator->Deallocate(base, total_bytes()); }

  size_t total_bytes() const { return static_cast<size_t>(slots) * slot_bytes; }
  std::span<uint8_t> slot(int index) const {
    return {base + static_cast<size_t>(index) * slot_bytes, slot_bytes};
  }

  const std::shared_ptr<HostAllocator> allocator;
  const int slots;
  const size_t slot_bytes;
  uint8_t* base = nullptr;

  mutable std::mutex mutex;
  std::condition_variable_any slot_freed;  // _any: it can wait on a std::stop_token
  std::vector<int> free;                   // guarded by mutex: indices of free slots
};

SlotPool::SlotPool(int slots, size_t slot_bytes, std::shared_ptr<HostAllocator> allocator) {
  if (slots < 1) {
    throw MakeError(ErrorCode::kInvalidArgument, "slot pool: slots must be >= 1, got {}", slots);
  }
  if (slot_bytes == 0) throw Error(ErrorCode::kInvalidArgument, "slot pool: slot_bytes is 0");
  if (!allocator) allocator = PageAlignedAllocator();
  size_t rounded = (slot_bytes + kPageBytes - 1) / kPageBytes * kPageBytes;
  shared_ = std::make_shared<Shared>(slots, rounded, std::move(allocator));
}

std::optional<SlotLease> SlotPool::Acquire(std::stop_token stop) {
  std::unique_lock lock(shared_->mutex);
  // wait() returns the predicate's value: false only when stop was requested first.
  if (!shared_->slot_freed.wait(lock, stop, [&] { return !shared_->free.empty(); })) {
    return std::nullopt;
  }
  if (stop.stop_requested()) return std::nullopt;
  return TakeFree();
}

std::optional<SlotLease> SlotPool::TryAcquire() {
  std::lock_guard lock(shared_->mutex);
  if (shared_->free.empty()) return std::nullopt;
  return TakeFree();
}

SlotLease SlotPool::TakeFree() {
  int index = shared_->free.back();
  shared_->free.pop_back();
  return SlotLease(shared_, index, shared_->slot(index));
}

int SlotPool::slots() const { return shared_->slots; }
size_t SlotPool::slot_bytes() const { return shared_->slot_bytes; }
size_t SlotPool::total_bytes() const { return shared_->total_bytes(); }

int SlotPool::available() const {
  std::lock_guard lock(shared_->mutex);
  return static_cast<int>(shared_->free.size());
}

SlotLease::SlotLease(SlotLease&& other) noexcept
    : pool_(std::move(other.pool_)),
      index_(std::exchange(other.index_, -1)),
      bytes_(std::exchange(other.bytes_, {})) {}

SlotLease& SlotLease::operator=(SlotLease&& other) noexcept {
  if (this != &other) {
    Release();
    pool_ = std::move(other.pool_);
    index_ = std::exchange(other.index_, -1);
    bytes_ = std::exchange(other.bytes_, {});
  }
  return *this;
}

void SlotLease::Release() noexcept {
  if (!pool_) return;
  {
    std::lock_guard lock(pool_->mutex);
    pool_->free.push_back(index_);
  }
  // notify_all: a waiter woken for a stop it was asked for returns without the slot, and a
  // notify_one spent on it would leave another waiter asleep beside a free slot.
  pool_->slot_freed.notify_all();
  // Dropping the reference last: if this was the final owner, the memory goes back now.
  pool_.reset();
  index_ = -1;
  bytes_ = {};
}

}  // namespace h5feed::memory
