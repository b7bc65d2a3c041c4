#pragma once
// A point in a stream's order that other threads wait for: an event's record, the end of what
// a synchronize waits for. Set once by the stream's thread when it gets there (release), waited
// for with acquire: the one edge it makes between threads, so a stream that should have waited
// and did not is, for ThreadSanitizer, a race.
//
// Thread-safety: Set from one thread, Wait and done from any.

#include <atomic>

namespace cuda_emulation {

class Marker {
 public:
  void Set() {
    done_.store(true, std::memory_order_release);
    done_.notify_all();
  }
  void Wait() const {
    while (!done_.load(std::memory_order_acquire)) done_.wait(false, std::memory_order_acquire);
  }
  bool done() const { return done_.load(std::memory_order_acquire); }

 private:
  std::atomic<bool> done_{false};
};

}  // namespace cuda_emulation
