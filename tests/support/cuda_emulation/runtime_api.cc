// The runtime calls of runtime_api.h over the emulated device (device.h), its streams
// (stream.h) and events (event.h).
#include "cuda_emulation/runtime_api.h"

#include <cstring>
#include <utility>

#include "call_result.h"
#include "device.h"
#include "event.h"
#include "host_function.h"
#include "stream.h"

namespace {

using cuda_emulation::Device;
using cuda_emulation::last_error;
using cuda_emulation::Place;
using cuda_emulation::Refusal;
using cuda_emulation::Result;

thread_local int current_device = 0;

// Whether a copy of `bytes` may read `source` and write `destination` as `kind` says, and
// whether it must be synchronous (a side in pageable memory).
cudaError_t CheckCopy(void* destination, const void* source, size_t bytes, cudaMemcpyKind kind,
                      bool& synchronous) {
  const cuda_emulation::DeviceMemory& memory = Device::Get().memory();
  const Place to = memory.Locate(destination, bytes);
  const Place from = memory.Locate(source, bytes);
  if (to == Place::kStraddles || from == Place::kStraddles) return cudaErrorInvalidValue;
  const auto host = [](Place place) { return place == Place::kHost || place == Place::kPinned; };
  bool valid = false;
  switch (kind) {
    case cudaMemcpyHostToHost: valid = host(to) && host(from); break;
    case cudaMemcpyHostToDevice: valid = to == Place::kDevice && host(from); break;
    case cudaMemcpyDeviceToHost: valid = host(to) && from == Place::kDevice; break;
    case cudaMemcpyDeviceToDevice: valid = to == Place::kDevice && from == Place::kDevice; break;
    case cudaMemcpyDefault: valid = true; break;
    default: return cudaErrorInvalidMemcpyDirection;
  }
  if (!valid) return cudaErrorInvalidValue;
  synchronous = to == Place::kHost || from == Place::kHost;
  return cudaSuccess;
}

// Enqueues `operation` on `stream`; when `synchronous`, waits for it and returns its outcome.
cudaError_t Submit(CUstream_st& stream, CUstream_st::Operation operation, bool synchronous) {
  if (synchronous) operation.signal = std::make_shared<cuda_emulation::Marker>();
  auto done = operation.signal;
  stream.Enqueue(std::move(operation));
  if (!synchronous) return cudaSuccess;
  done->Wait();
  return Result(Device::Get().fault());
}

}  // namespace

cudaError_t cudaGetDeviceCount(int* count) {
  *count = 1;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  *device = current_device;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  if (device != 0) return Result(cudaErrorInvalidDevice);
  current_device = device;
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize() {
  if (cuda_emulation::InHostFunction()) return Result(cudaErrorNotPermitted);
  Device::Get().SynchronizeStreams();
  return Result(Device::Get().fault());
}

cudaError_t cudaGetLastError() {
  const cudaError_t fault = Device::Get().fault();
  const cudaError_t error = last_error;
  last_error = cudaSuccess;
  return fault != cudaSuccess ? fault : error;
}

cudaError_t cudaPeekAtLastError() {
  const cudaError_t fault = Device::Get().fault();
  return fault != cudaSuccess ? fault : last_error;
}

cudaError_t cudaMalloc(void** pointer, size_t bytes) {
  if (const cudaError_t refused = Refusal()) return Result(refused);
  *pointer = Device::Get().memory().Allocate(bytes, cuda_emulation::Memory::kDevice);
  return *pointer != nullptr ? cudaSuccess : Result(cudaErrorMemoryAllocation);
}

cudaError_t cudaHostAlloc(void** pointer, size_t bytes, unsigned int flags) {
  if (const cudaError_t refused = Refusal()) return Result(refused);
  if ((flags & ~unsigned{cudaHostAllocPortable}) != 0) return Result(cudaErrorNotSupported);
  *pointer = Device::Get().memory().Allocate(bytes, cuda_emulation::Memory::kPinned);
  return *pointer != nullptr ? cudaSuccess : Result(cudaErrorMemoryAllocation);
}

namespace {

// cudaFree and cudaFreeHost: wait for the device, then free (also after a fault, so that a
// faulted test leaks nothing; the fault is still returned).
cudaError_t Free(void* pointer, cuda_emulation::Memory kind) {
  if (cuda_emulation::InHostFunction()) return Result(cudaErrorNotPermitted);
  if (pointer == nullptr) return cudaSuccess;
  Device& device = Device::Get();
  device.SynchronizeStreams();
  if (!device.memory().Free(pointer, kind)) return Result(cudaErrorInvalidValue);
  return Result(device.fault());
}

}  // namespace

cudaError_t cudaFree(void* pointer) { return Free(pointer, cuda_emulation::Memory::kDevice); }
cudaError_t cudaFreeHost(void* pointer) { return Free(pointer, cuda_emulation::Memory::kPinned); }

cudaError_t cudaMemcpyAsync(void* destination, const void* source, size_t bytes,
                            cudaMemcpyKind kind, cudaStream_t stream) {
  if (const cudaError_t refused = Refusal()) return Result(refused);
  CUstream_st* on = Device::Get().Stream(stream);
  if (on == nullptr) return Result(cudaErrorInvalidResourceHandle);
  if (bytes == 0) return cudaSuccess;
  bool synchronous = false;
  if (const cudaError_t invalid = CheckCopy(destination, source, bytes, kind, synchronous)) {
    return Result(invalid);
  }
  CUstream_st::Operation copy;
  copy.kind = cuda_emulation::Work::kCopy;
  copy.work = [=](CUstream_st&) {
    std::memcpy(destination, source, bytes);
    return cudaSuccess;
  };
  return Submit(*on, std::move(copy), synchronous);
}

cudaError_t cudaMemcpy(void* destination, const void* source, size_t bytes, cudaMemcpyKind kind) {
  if (const cudaError_t refused = Refusal()) return Result(refused);
  bool synchronous = true;
  if (const cudaError_t invalid = CheckCopy(destination, source, bytes, kind, synchronous)) {
    return Result(invalid);
  }
  CUstream_st::Operation copy;
  copy.kind = cuda_emulation::Work::kCopy;
  copy.work = [=](CUstream_st&) {
    std::memcpy(destination, source, bytes);
    return cudaSuccess;
  };
  return Submit(*Device::Get().legacy_stream(), std::move(copy), true);
}

cudaError_t cudaMemsetAsync(void* pointer, int value, size_t bytes, cudaStream_t stream) {
  if (const cudaError_t refused = Refusal()) return Result(refused);
  CUstream_st* on = Device::Get().Stream(stream);
  if (on == nullptr) return Result(cudaErrorInvalidResourceHandle);
  if (bytes == 0) return cudaSuccess;
  const Place place = Device::Get().memory().Locate(pointer, bytes);
  if (place != Place::kDevice && place != Place::kPinned) return Result(cudaErrorInvalidValue);
  CUstream_st::Operation set;
  set.kind = cuda_emulation::Work::kCopy;
  set.work = [=](CUstream_st&) {
    std::memset(pointer, value, bytes);
    return cudaSuccess;
  };
  return Submit(*on, std::move(set), false);
}

cudaError_t cudaMemset(void* pointer, int value, size_t bytes) {
  return cudaMemsetAsync(pointer, value, bytes, nullptr);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  if (const cudaError_t refused = Refusal()) return Result(refused);
  // A blocking stream would synchronise with the legacy one, which is not emulated.
  if (flags != cudaStreamNonBlocking) return Result(cudaErrorNotSupported);
  *stream = Device::Get().NewStream();
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  if (cuda_emulation::InHostFunction()) return Result(cudaErrorNotPermitted);
  if (stream == nullptr || !Device::Get().DestroyStream(stream)) {
    return Result(cudaErrorInvalidResourceHandle);
  }
  return Result(Device::Get().fault());
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  if (cuda_emulation::InHostFunction()) return Result(cudaErrorNotPermitted);
  CUstream_st* on = Device::Get().Stream(stream);
  if (on == nullptr) return Result(cudaErrorInvalidResourceHandle);
  on->Synchronize();
  return Result(Device::Get().fault());
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  if (const cudaError_t refused = Refusal()) return Result(refused);
  CUstream_st* on = Device::Get().Stream(stream);
  if (on == nullptr || !Device::Get().IsEvent(event)) {
    return Result(cudaErrorInvalidResourceHandle);
  }
  if (flags != 0) return Result(cudaErrorInvalidValue);
  CUstream_st::Operation wait;
  wait.wait = event->latest();
  if (wait.wait) on->Enqueue(std::move(wait));
  return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t function, void* user_data) {
  if (const cudaError_t refused = Refusal()) return Result(refused);
  CUstream_st* on = Device::Get().Stream(stream);
  if (on == nullptr) return Result(cudaErrorInvalidResourceHandle);
  CUstream_st::Operation call;
  call.work = [function, user_data](CUstream_st&) {
    cuda_emulation::HostFunctionScope scope;
    function(user_data);
    return cudaSuccess;
  };
  on->Enqueue(std::move(call));
  return cudaSuccess;
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void* user_data, unsigned int flags) {
  if (const cudaError_t refused = Refusal()) return Result(refused);
  CUstream_st* on = Device::Get().Stream(stream);
  if (on == nullptr) return Result(cudaErrorInvalidResourceHandle);
  if (flags != 0) return Result(cudaErrorInvalidValue);
  CUstream_st::Operation call;
  call.callback = [callback, stream, user_data](cudaError_t status) {
    cuda_emulation::HostFunctionScope scope;
    callback(stream, status, user_data);
  };
  on->Enqueue(std::move(call));
  return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  if (const cudaError_t refused = Refusal()) return Result(refused);
  if ((flags & ~unsigned{cudaEventDisableTiming}) != 0) return Result(cudaErrorNotSupported);
  *event = Device::Get().NewEvent();
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  if (cuda_emulation::InHostFunction()) return Result(cudaErrorNotPermitted);
  if (!Device::Get().DestroyEvent(event)) return Result(cudaErrorInvalidResourceHandle);
  return Result(Device::Get().fault());
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  if (const cudaError_t refused = Refusal()) return Result(refused);
  CUstream_st* on = Device::Get().Stream(stream);
  if (on == nullptr || !Device::Get().IsEvent(event)) {
    return Result(cudaErrorInvalidResourceHandle);
  }
  std::lock_guard lock(event->mutex);  // the record and its place in the stream, at once
  event->latest_record = on->Record();
  return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (cuda_emulation::InHostFunction()) return Result(cudaErrorNotPermitted);
  if (!Device::Get().IsEvent(event)) return Result(cudaErrorInvalidResourceHandle);
  if (auto marker = event->latest()) marker->Wait();
  return Result(Device::Get().fault());
}
