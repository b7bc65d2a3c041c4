#pragma once
// A fixed ring of equal host buffers ("slots") that batches are assembled in and handed to the
// trainer from. The number of slots is the prefetch depth; the pool is the whole of the
// loader's batch memory: slots() x slot_bytes() bytes, allocated once, up front, from one
// HostAllocator region (pinned when the GPU stage wires cudaHostAlloc, so one registration
// covers every slot).
//
// Thread-safety: every member may be called from any thread (one internal mutex). Acquire
// blocks while every slot is leased (TryAcquire never does); a std::stop_token interrupts the wait
// so a pipeline being torn down never hangs on a trainer that keeps its batches.
//
// Ownership: a SlotLease owns one slot and returns it in its destructor. Leases share the
// pool's memory: destroying the SlotPool object while leases live is fine (batches a trainer
// still holds stay valid); the memory goes back to the allocator with the last of them.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stop_token>

#include "memory/host_allocator.h"

namespace h5feed::memory {

class SlotLease;

class SlotPool {
 public:
  // `slots` >= 1 buffers of `slot_bytes` >= 1 bytes each, every one starting on a page
  // (slot_bytes is rounded up to kPageBytes). Throws Error(kInvalidArgument) for a zero count
  // or size, Error(kIo) when the allocator refuses.
  SlotPool(int slots, size_t slot_bytes, std::shared_ptr<HostAllocator> allocator);
  SlotPool(SlotPool&&) noexcept = default;
  SlotPool& operator=(SlotPool&&) noexcept = default;
  ~SlotPool() = default;

  // A free slot, waiting while none is. Returns nullopt, without a slot, once `stop` is
  // requested (even if a slot is free: a stopping pipeline must not take one more).
  std::optional<SlotLease> Acquire(std::stop_token stop);
  // A slot if one is free now; nullopt, at once, if none is.
  std::optional<SlotLease> TryAcquire();

  int slots() const;
  size_t slot_bytes() const;   // usable bytes per slot (a page multiple)
  size_t total_bytes() const;  // slots() x slot_bytes(): the documented bound
  int available() const;       // slots free right now (a snapshot)

 private:
  friend class SlotLease;
  struct Shared;
  SlotLease TakeFree();  // with the mutex held and a slot free
  std::shared_ptr<Shared> shared_;
};

// One leased slot. Move-only; the destructor (or Release) returns the slot to its pool and
// wakes the threads waiting in Acquire.
class SlotLease {
 public:
  SlotLease() = default;  // empty: owns no slot
  SlotLease(SlotLease&& other) noexcept;
  SlotLease& operator=(SlotLease&& other) noexcept;
  SlotLease(const SlotLease&) = delete;
  SlotLease& operator=(const SlotLease&) = delete;
  ~SlotLease() { Release(); }

  // The slot's memory: slot_bytes() bytes, page-aligned. Empty after Release or a move.
  std::span<uint8_t> bytes() const { return bytes_; }
  int index() const { return index_; }  // 0 <= index < slots(); -1 when empty

  void Release() noexcept;

 private:
  friend class SlotPool;
  SlotLease(std::shared_ptr<SlotPool::Shared> pool, int index, std::span<uint8_t> bytes)
      : pool_(std::move(pool)), index_(index), bytes_(bytes) {}

  std::shared_ptr<SlotPool::Shared> pool_;
  int index_ = -1;
  std::span<uint8_t> bytes_;
};

}  // namespace h5feed::memory
