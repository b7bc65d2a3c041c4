#pragma once
// RAII owners of the GPU stage's CUDA handles (device_stage.cc): the current device for a
// scope, a device allocation, an event, a stream. Host code only (includes cuda_runtime.h; never
// in a public header). Each is move-less: the stage holds them in place for its life.

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "cuda/cuda_check.h"

namespace h5feed::cuda {

// Makes `device` current for the scope and restores the caller's device after: the trainer's
// thread may be working on another device between two Next calls.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    Check(cudaGetDevice(&previous_), "cudaGetDevice");
    if (previous_ != device) {
      Check(cudaSetDevice(device), ("selecting CUDA device " + std::to_string(device)).c_str());
    }
  }
  ~DeviceScope() { cudaSetDevice(previous_); }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

// Owning device allocation.
struct DeviceBuffer {
  void* data = nullptr;
  explicit DeviceBuffer(size_t bytes) { Check(cudaMalloc(&data, bytes), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(data); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

// Owning event; timing disabled (cheaper record and wait).
struct Event {
  cudaEvent_t event = nullptr;
  Event() { Check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate"); }
  ~Event() { cudaEventDestroy(event); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
};

// Owning stream, non-blocking: no implicit ordering with the legacy default stream, which the
// trainer may use; every ordering here is an explicit event.
struct Stream {
  cudaStream_t stream = nullptr;
  Stream() { Check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~Stream() { cudaStreamDestroy(stream); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

}  // namespace h5feed::cuda
