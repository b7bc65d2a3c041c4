#pragma once
// The emulated device's memory, and the pinned host memory cudaHostAlloc gives: host memory
// either way, remembered by address so that copies can be checked (runtime_api.h) and a free
// of what was not allocated refused.
//
// New device memory is filled with 0xcd bytes, freed device memory with 0xdd, and kept out of
// use until 64 MiB more has been freed, so a read after a free, or of what nothing wrote,
// gives bytes no test expects. In an AddressSanitizer build freed memory goes back at once:
// ASan's own quarantine then reports any access to it.
//
// Thread-safety: every member may be called from any host thread (one mutex, taken by host
// threads only: the streams' threads never do, so it orders nothing between streams).

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>

namespace cuda_emulation {

enum class Memory { kDevice, kPinned };

// Where a range of bytes lies.
enum class Place {
  kHost,       // outside every allocation: pageable host memory
  kDevice,     // inside one device allocation
  kPinned,     // inside one cudaHostAlloc allocation
  kStraddles,  // starts inside an allocation and runs past its end
};

class DeviceMemory {
 public:
  DeviceMemory() = default;
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  // `bytes` (at least 1) of `kind`, 256-byte aligned (device) or page-aligned (pinned);
  // nullptr when the host has no memory for it.
  void* Allocate(size_t bytes, Memory kind);
  // False when `pointer` is not the start of a live allocation of `kind`.
  bool Free(void* pointer, Memory kind);
  Place Locate(const void* pointer, size_t bytes) const;

 private:
  struct Allocation {
    size_t bytes;
    Memory kind;
  };

  static constexpr size_t kQuarantineBytes = size_t{64} << 20;

  mutable std::mutex mutex_;
  std::map<uintptr_t, Allocation> live_;                 // guarded by mutex_: by start address
  std::deque<std::pair<void*, Allocation>> quarantine_;  // guarded by mutex_: freed, poisoned
  size_t quarantined_bytes_ = 0;                         // guarded by mutex_
};

}  // namespace cuda_emulation
