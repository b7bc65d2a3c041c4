#pragma once
// An emulated CUDA stream (cudaStream_t points to one): an ordered queue of operations that a
// thread of its own runs, one after another, while the host goes on (the host runs ahead of
// the device as on a GPU). Before each operation the thread waits a random few tens of
// microseconds now and then, so that work of two streams that nothing orders comes out in
// varying orders from run to run.
//
// Operations pass from the host to the stream's thread through a list that only the host
// writes and the thread only reads (release on one side, acquire on the other): the thread
// never releases anything the host acquires, so the host learns of a stream's progress only
// through a Marker, as it does through an event or a synchronize on a GPU.
//
// Thread-safety: Enqueue, Record and Synchronize from any host thread; the destructor runs
// what was enqueued, then ends the thread.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "block_threads.h"
#include "cuda_emulation/faults.h"
#include "marker.h"

struct CUstream_st {
 public:
  struct Operation {
    std::shared_ptr<cuda_emulation::Marker> wait;  // waited for first
    // Device work or a host function; not run once the device has failed.
    std::function<cudaError_t(CUstream_st&)> work;
    std::optional<cuda_emulation::Work> kind;  // copies and kernels: may be made to fail
    // A stream callback: runs also after a failure, given the device's error.
    std::function<void(cudaError_t)> callback;
    std::shared_ptr<cuda_emulation::Marker> signal;  // set last, also after a failure
    bool stop = false;
  };

  explicit CUstream_st(unsigned jitter_seed);
  ~CUstream_st();
  CUstream_st(const CUstream_st&) = delete;
  CUstream_st& operator=(const CUstream_st&) = delete;

  void Enqueue(Operation operation);
  // A marker set when the stream gets past everything enqueued before it.
  std::shared_ptr<cuda_emulation::Marker> Record();
  void Synchronize() { Record()->Wait(); }

  // The stream's thread only: the threads its kernels run on.
  cuda_emulation::BlockThreads& block_threads() { return block_threads_; }

 private:
  struct Node {
    Operation operation;
    std::atomic<Node*> next{nullptr};
  };

  void Run();
  void Execute(Operation& operation);

  std::mutex enqueue_mutex_;  // host threads only
  Node* tail_;                // guarded by enqueue_mutex_: the last node
  std::atomic<uint64_t> enqueued_{0};
  Node* head_;  // the stream's thread only: the node it ran last (a dummy at first)
  std::minstd_rand jitter_;
  cuda_emulation::BlockThreads block_threads_;
  std::thread thread_;  // last: started when everything above exists
};
