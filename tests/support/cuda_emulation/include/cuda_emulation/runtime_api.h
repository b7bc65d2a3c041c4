#pragma once
// The CUDA runtime calls h5feed makes, with CUDA's signatures, implemented on the host by the
// emulation (runtime_api.cc). Their contracts are CUDA's, as the emulation keeps them:
//
// - Streams are ordered queues, each run by a thread of its own, so the host runs ahead of the
//   "device" as it does on a GPU. Non-blocking streams only (cudaStreamNonBlocking), and the
//   legacy default stream (0), which is one more such queue: the implicit synchronisation of
//   the legacy stream with blocking streams is not emulated (h5feed creates none).
// - An event completes when its stream reaches it; cudaStreamWaitEvent orders a stream after
//   the event's latest record at the time of the call (no record: no wait). Two streams share
//   no other synchronisation, so ThreadSanitizer sees a missing wait as a race.
// - Device memory is host memory, 256-byte aligned, filled with 0xcd when allocated and with
//   0xdd when freed (then held back a while before it is reused; ASan builds free it at once,
//   for ASan's own checks). cudaFree and cudaFreeHost wait for the device first, as CUDA does.
// - Copies check their ranges: a device side must lie inside one live device allocation, a
//   host side outside every one (cudaErrorInvalidValue otherwise). From pinned memory
//   (cudaHostAlloc) a copy reads or writes when its stream reaches it; with pageable memory
//   cudaMemcpyAsync returns only once its copy is done (CUDA's rule for D2H; for H2D CUDA
//   returns once the bytes are staged, so the caller may reuse them either way).
// - A fault on the device (a trap in a kernel, or one injected: faults.h) is sticky, as on a
//   GPU: every later call returns it, nothing more runs on any stream (host functions are not
//   called, as cudaLaunchHostFunc says; stream callbacks are, with the error, as
//   cudaStreamAddCallback says), events still complete so no wait hangs. cudaFree,
//   cudaFreeHost and the destroy calls still release what they name, so a faulted test leaks
//   nothing.
// - Host functions and stream callbacks must not call CUDA: a call from one returns
//   cudaErrorNotPermitted.
// - The last error is per host thread (cudaGetLastError reads and clears it; a sticky error is
//   never cleared).

#include <cstddef>

#include "cuda_emulation/types.h"

cudaError_t cudaGetDeviceCount(int* count);  // one device
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorName(cudaError_t error);
const char* cudaGetErrorString(cudaError_t error);

cudaError_t cudaMalloc(void** pointer, size_t bytes);
cudaError_t cudaFree(void* pointer);
cudaError_t cudaHostAlloc(void** pointer, size_t bytes, unsigned int flags);
cudaError_t cudaFreeHost(void* pointer);

template <typename T>
cudaError_t cudaMalloc(T** pointer, size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(pointer), bytes);
}
template <typename T>
cudaError_t cudaHostAlloc(T** pointer, size_t bytes, unsigned int flags) {
  return cudaHostAlloc(reinterpret_cast<void**>(pointer), bytes, flags);
}

// cudaMemcpy and cudaMemset are ordered on the legacy default stream; cudaMemcpy waits for
// its copy, cudaMemset does not (device memory).
cudaError_t cudaMemcpy(void* destination, const void* source, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* destination, const void* source, size_t bytes,
                            cudaMemcpyKind kind, cudaStream_t stream = nullptr);
cudaError_t cudaMemset(void* pointer, int value, size_t bytes);
cudaError_t cudaMemsetAsync(void* pointer, int value, size_t bytes, cudaStream_t stream = nullptr);

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);  // runs what it holds first
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags = 0);
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t function, void* user_data);
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void* user_data, unsigned int flags);

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = nullptr);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
