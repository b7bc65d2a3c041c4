#pragma once
// What every runtime call of the emulation shares: the calling thread's last error
// (cudaGetLastError's), and the refusal a call starts with.

#include "cuda_emulation/types.h"
#include "device.h"
#include "host_function.h"

namespace cuda_emulation {

inline thread_local cudaError_t last_error = cudaSuccess;

// `error`, remembered as the thread's last error unless it is cudaSuccess.
inline cudaError_t Result(cudaError_t error) {
  if (error != cudaSuccess) last_error = error;
  return error;
}

// What a call returns before doing anything: inside a host function or stream callback, or
// after a device fault; cudaSuccess otherwise.
inline cudaError_t Refusal() {
  if (InHostFunction()) return cudaErrorNotPermitted;
  return Device::Get().fault();
}

}  // namespace cuda_emulation
