#pragma once
// The threads that run a stream's kernels: one real thread per thread of a block, running the
// blocks of a grid one after another (CUDA promises no order among blocks, nor that they run
// at once). __syncthreads is a std::barrier of the block's threads; a thread that returns from
// the kernel drops out of it, as an exited thread stops counting on a GPU. A barrier at the end
// of each block makes the next block start on fresh state: its dynamic shared memory filled
// with 0xff bytes, its barrier new.
//
// Real threads, so the block's threads interleave as the host's scheduler lets them and
// ThreadSanitizer sees shared memory used across a missing __syncthreads as a race. The
// threads are made when the stream first launches a kernel (and again when a launch's block
// has another size) and live as long as the stream.
//
// Thread-safety: Run from one thread at a time (the stream's).

#include <atomic>
#include <barrier>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "cuda_emulation/types.h"

namespace cuda_emulation {

struct Grid {
  dim3 blocks;
  dim3 threads;
  size_t shared_bytes = 0;
  std::function<void()> body;  // the kernel with its arguments, run by every thread
};

class BlockThreads {
 public:
  BlockThreads() = default;
  ~BlockThreads();
  BlockThreads(const BlockThreads&) = delete;
  BlockThreads& operator=(const BlockThreads&) = delete;

  // Runs every block of `grid`; cudaErrorLaunchFailure when a thread trapped (or threw).
  cudaError_t Run(const Grid& grid);

  // For device code: the current block's barrier and dynamic shared memory.
  void SyncThreads() { sync_->arrive_and_wait(); }
  void* shared_memory() { return shared_.get(); }

 private:
  struct NextBlock {  // the block barrier's completion: fresh state for the next block
    BlockThreads* threads;
    void operator()() noexcept;
  };

  void Start(unsigned count);
  void Stop();
  void Work(unsigned index);
  void FreshBlock();

  std::vector<std::thread> threads_;
  std::optional<std::barrier<>> launch_;  // the threads and the stream's thread: start, end
  std::optional<std::barrier<NextBlock>> block_end_;  // the threads, after each block
  std::optional<std::barrier<>> sync_;                // __syncthreads, one per block

  // Set by the stream's thread before launch_ releases the threads.
  const Grid* grid_ = nullptr;           // nullptr: the threads end
  std::unique_ptr<std::byte[]> shared_;  // the block's; made anew by NextBlock
  std::atomic<bool> trapped_{false};     // read by the stream's thread after launch_
};

}  // namespace cuda_emulation
