#include "device.h"

#include <utility>

#include "event.h"
#include "stream.h"

namespace cuda_emulation {

Device& Device::Get() {
  static Device* const device = new Device;
  return *device;
}

void Device::Fail(cudaError_t error) {
  int expected = cudaSuccess;
  fault_.compare_exchange_strong(expected, error, std::memory_order_release,
                                 std::memory_order_relaxed);
}

cudaError_t Device::InjectedFault(Work work) {
  Injection& injection = injections_[static_cast<int>(work)];
  if (injection.countdown.load(std::memory_order_relaxed) <= 0) return cudaSuccess;
  if (injection.countdown.fetch_sub(1, std::memory_order_relaxed) != 1) return cudaSuccess;
  return static_cast<cudaError_t>(injection.error.load(std::memory_order_relaxed));
}

void Device::ArmFault(Work work, int nth, cudaError_t error) {
  Injection& injection = injections_[static_cast<int>(work)];
  injection.error.store(error, std::memory_order_relaxed);
  injection.countdown.store(nth, std::memory_order_relaxed);
}

void Device::Reset() {
  for (Injection& injection : injections_) injection.countdown.store(0, std::memory_order_relaxed);
  fault_.store(cudaSuccess, std::memory_order_release);
}

CUstream_st* Device::legacy_stream() {
  std::lock_guard lock(mutex_);
  if (!legacy_) legacy_ = std::make_unique<CUstream_st>(streams_made_++);
  return legacy_.get();
}

CUstream_st* Device::NewStream() {
  std::lock_guard lock(mutex_);
  auto* stream = new CUstream_st(streams_made_++);
  streams_.insert(stream);
  return stream;
}

bool Device::DestroyStream(CUstream_st* stream) {
  {
    std::lock_guard lock(mutex_);
    if (streams_.erase(stream) == 0) return false;
  }
  delete stream;  // runs what it holds: not under the mutex, which its work may need
  return true;
}

CUstream_st* Device::Stream(cudaStream_t handle) {
  if (handle == nullptr) return legacy_stream();
  std::lock_guard lock(mutex_);
  return streams_.count(handle) != 0 ? handle : nullptr;
}

void Device::SynchronizeStreams() {
  std::vector<CUstream_st*> streams;
  {
    std::lock_guard lock(mutex_);
    streams.assign(streams_.begin(), streams_.end());
    if (legacy_) streams.push_back(legacy_.get());
  }
  for (CUstream_st* stream : streams) stream->Synchronize();
}

CUevent_st* Device::NewEvent() {
  std::lock_guard lock(mutex_);
  auto* event = new CUevent_st;
  events_.insert(event);
  return event;
}

bool Device::DestroyEvent(CUevent_st* event) {
  std::lock_guard lock(mutex_);
  if (events_.erase(event) == 0) return false;
  delete event;
  return true;
}

bool Device::IsEvent(CUevent_st* event) {
  std::lock_guard lock(mutex_);
  return events_.count(event) != 0;
}

std::mutex* Device::KernelLock(const void* kernel) {
  std::lock_guard lock(mutex_);
  std::unique_ptr<std::mutex>& kernel_lock = kernel_locks_[kernel];
  if (!kernel_lock) kernel_lock = std::make_unique<std::mutex>();
  return kernel_lock.get();
}

void FailNth(Work work, int nth, cudaError_t error) { Device::Get().ArmFault(work, nth, error); }

void ResetDevice() { Device::Get().Reset(); }

}  // namespace cuda_emulation
