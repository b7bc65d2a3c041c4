#include "stream.h"

#include <chrono>
#include <utility>

#include "device.h"

CUstream_st::CUstream_st(unsigned jitter_seed)
    : tail_(new Node), head_(tail_), jitter_(jitter_seed + 1), thread_([this] { Run(); }) {}

CUstream_st::~CUstream_st() {
  Operation stop;
  stop.stop = true;
  Enqueue(std::move(stop));
  thread_.join();
  delete head_;
}

void CUstream_st::Enqueue(Operation operation) {
  auto* node = new Node;
  node->operation = std::move(operation);
  std::lock_guard lock(enqueue_mutex_);
  tail_->next.store(node, std::memory_order_release);
  tail_ = node;
  enqueued_.fetch_add(1, std::memory_order_release);
  enqueued_.notify_one();
}

std::shared_ptr<cuda_emulation::Marker> CUstream_st::Record() {
  auto marker = std::make_shared<cuda_emulation::Marker>();
  Operation operation;
  operation.signal = marker;
  Enqueue(std::move(operation));
  return marker;
}

void CUstream_st::Run() {
  uint64_t taken = 0;
  while (true) {
    enqueued_.wait(taken, std::memory_order_acquire);
    while (taken < enqueued_.load(std::memory_order_acquire)) {
      Node* next = head_->next.load(std::memory_order_acquire);
      delete head_;
      head_ = next;
      ++taken;
      if (head_->operation.stop) return;
      Execute(head_->operation);
      head_->operation = Operation{};  // what it holds goes now, not with the next operation
    }
  }
}

void CUstream_st::Execute(Operation& operation) {
  if (operation.wait) operation.wait->Wait();
  if (jitter_() % 2 == 0) {
    std::this_thread::sleep_for(std::chrono::microseconds(jitter_() % 100));
  }
  cuda_emulation::Device& device = cuda_emulation::Device::Get();
  if (operation.work && device.fault() == cudaSuccess) {
    cudaError_t error = operation.kind ? device.InjectedFault(*operation.kind) : cudaSuccess;
    if (error == cudaSuccess) error = operation.work(*this);
    if (error != cudaSuccess) device.Fail(error);
  }
  if (operation.callback) operation.callback(device.fault());
  if (operation.signal) operation.signal->Set();
}
