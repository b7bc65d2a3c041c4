#pragma once
// A growable byte buffer for per-thread scratch memory: Get(n) hands out n bytes, growing only
// when n exceeds what it already holds and never initialising them (a 4 MiB memset per chunk
// would cost about a tenth of decompressing it). Not thread-safe: each thread owns its own
// (thread_local), so no chunk read allocates once a thread has seen the largest chunk.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace h5feed::index {

class ScratchBuffer {
 public:
  // The first n bytes of the buffer, contents unspecified. Invalidates spans handed out before.
  std::span<uint8_t> Get(size_t n) {
    if (n > capacity_) {
      // A quarter more than asked: compressed chunk sizes vary by a few percent, and this
      // keeps a thread from reallocating for every slightly larger one.
      size_t grown = n + n / 4;
      data_ = std::make_unique_for_overwrite<uint8_t[]>(grown);
      capacity_ = grown;
    }
    return {data_.get(), n};
  }
  bool Holds(const uint8_t* p) const { return p >= data_.get() && p < data_.get() + capacity_; }

 private:
  std::unique_ptr<uint8_t[]> data_;
  size_t capacity_ = 0;
};

}  // namespace h5feed::index
