#include "block_threads.h"

#include <chrono>
#include <cstring>

#include "cuda_emulation/device_code.h"

namespace cuda_emulation {
namespace {

thread_local BlockThreads* current = nullptr;  // the block this thread belongs to

// Thrown by __trap(): ends the thread's part of the kernel.
struct Trapped {};

uint3 Coordinates(unsigned long long index, const dim3& extent) {
  return uint3{static_cast<unsigned>(index % extent.x),
               static_cast<unsigned>(index / extent.x % extent.y),
               static_cast<unsigned>(index / extent.x / extent.y)};
}

}  // namespace

void SyncThreads() { current->SyncThreads(); }
void* DynamicSharedMemory() { return current->shared_memory(); }
void Trap() { throw Trapped{}; }
long long Clock() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

BlockThreads::~BlockThreads() { Stop(); }

void BlockThreads::NextBlock::operator()() noexcept { threads->FreshBlock(); }

void BlockThreads::FreshBlock() {
  const auto count = static_cast<ptrdiff_t>(threads_.size());
  sync_.emplace(count);
  shared_.reset(new std::byte[grid_->shared_bytes]);
  std::memset(shared_.get(), 0xff, grid_->shared_bytes);
}

cudaError_t BlockThreads::Run(const Grid& grid) {
  const unsigned count = grid.threads.x * grid.threads.y * grid.threads.z;
  if (count != threads_.size()) {
    Stop();
    Start(count);
  }
  grid_ = &grid;
  trapped_.store(false, std::memory_order_relaxed);
  FreshBlock();
  launch_->arrive_and_wait();  // the threads start
  launch_->arrive_and_wait();  // ... and have run every block
  grid_ = nullptr;
  shared_.reset();
  return trapped_.load(std::memory_order_relaxed) ? cudaErrorLaunchFailure : cudaSuccess;
}

void BlockThreads::Start(unsigned count) {
  launch_.emplace(static_cast<ptrdiff_t>(count) + 1);
  block_end_.emplace(static_cast<ptrdiff_t>(count), NextBlock{this});
  threads_.reserve(count);
  for (unsigned i = 0; i < count; ++i) threads_.emplace_back([this, i] { Work(i); });
}

void BlockThreads::Stop() {
  if (threads_.empty()) return;
  grid_ = nullptr;
  launch_->arrive_and_wait();
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
}

void BlockThreads::Work(unsigned index) {
  current = this;
  while (true) {
    launch_->arrive_and_wait();
    const Grid* grid = grid_;
    if (grid == nullptr) return;
    blockDim = grid->threads;
    gridDim = grid->blocks;
    threadIdx = Coordinates(index, blockDim);
    const unsigned long long blocks =
        static_cast<unsigned long long>(gridDim.x) * gridDim.y * gridDim.z;
    for (unsigned long long block = 0; block < blocks; ++block) {
      blockIdx = Coordinates(block, gridDim);
      try {
        grid->body();
      } catch (...) {  // a trap, or anything else the kernel threw: the launch failed
        trapped_.store(true, std::memory_order_relaxed);
      }
      sync_->arrive_and_drop();
      block_end_->arrive_and_wait();
    }
    blockIdx = threadIdx = uint3{0, 0, 0};
    blockDim = gridDim = dim3(0, 0, 0);
    launch_->arrive_and_wait();
  }
}

}  // namespace cuda_emulation
