#pragma once
// The one emulated device: what the runtime calls and the streams share. Its sticky fault (the
// first error a copy or kernel met on the device: every later call returns it), the faults
// armed by a test (faults.h), and, for the host threads only, the live streams and events, the
// legacy default stream, a lock per kernel and the memory.
//
// Made on first use and never destroyed: streams' threads may run past static destruction.
//
// Thread-safety: fault() and InjectedFault from any thread (atomics: relaxed for the injected
// faults, which must order nothing between streams; the sticky fault is written once per
// failure and read with acquire). The rest from host threads (one mutex).

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "cuda_emulation/faults.h"
#include "device_memory.h"

namespace cuda_emulation {

class Device {
 public:
  static Device& Get();

  cudaError_t fault() const {
    return static_cast<cudaError_t>(fault_.load(std::memory_order_acquire));
  }
  void Fail(cudaError_t error);  // the first failure stays
  // The error a copy or kernel about to run fails with (cudaSuccess: it runs).
  cudaError_t InjectedFault(Work work);
  void ArmFault(Work work, int nth, cudaError_t error);
  void Reset();

  CUstream_st* legacy_stream();
  CUstream_st* NewStream();
  bool DestroyStream(CUstream_st* stream);  // false: not a live stream
  // The live stream `handle` names (nullptr: the legacy one), or nullptr.
  CUstream_st* Stream(cudaStream_t handle);
  void SynchronizeStreams();  // every stream's work enqueued so far

  CUevent_st* NewEvent();
  bool DestroyEvent(CUevent_st* event);
  bool IsEvent(CUevent_st* event);

  // The lock a kernel's launches take turns with (its __shared__ variables are statics).
  std::mutex* KernelLock(const void* kernel);

  DeviceMemory& memory() { return memory_; }

 private:
  struct Injection {
    std::atomic<int> countdown{0};  // the nth from now fails; 0: none armed
    std::atomic<int> error{cudaSuccess};
  };

  Device() = default;

  std::atomic<int> fault_{cudaSuccess};
  Injection injections_[2];  // by Work

  std::mutex mutex_;  // host threads only
  std::unique_ptr<CUstream_st> legacy_;
  std::set<CUstream_st*> streams_;  // guarded by mutex_, owned (the legacy one too)
  std::set<CUevent_st*> events_;    // guarded by mutex_, owned
  std::map<const void*, std::unique_ptr<std::mutex>> kernel_locks_;  // guarded by mutex_
  unsigned streams_made_ = 0;                                        // guarded by mutex_
  DeviceMemory memory_;
};

}  // namespace cuda_emulation
