#pragma once
// What a gatherer with skip_corrupt_chunks has found of each chunk of its dataset: nothing yet,
// every row sound, or corrupt. A verdict is made once, from the chunk's own bytes (every row
// checked, or its load failing), and never changes back, so each step that touches the chunk
// sees the same answer whichever thread reached it first: the batches stay a function of the
// seed, the epoch and the rank, and a resume delivers what an uninterrupted run does.
//
// Thread-safety: every member may be called from many threads at once (one atomic a chunk).
// Two threads may judge one chunk at the same time; they read the same bytes and reach the same
// verdict, and MarkCorrupt tells exactly one of them it was first.

#include <atomic>
#include <cstdint>
#include <memory>

namespace h5feed::pipeline {

class ChunkVerdicts {
 public:
  explicit ChunkVerdicts(int64_t chunks)
      : verdicts_(std::make_unique<std::atomic<uint8_t>[]>(static_cast<size_t>(chunks))) {}

  bool sound(int64_t chunk) const { return at(chunk).load() == kSound; }
  bool corrupt(int64_t chunk) const { return at(chunk).load() == kCorrupt; }

  // Every row of `chunk` passed its check. A chunk already found corrupt stays corrupt.
  void MarkSound(int64_t chunk) {
    uint8_t unjudged = kUnjudged;
    at(chunk).compare_exchange_strong(unjudged, kSound);
  }
  // Returns whether this call found it first: the one that counts the chunk and warns.
  bool MarkCorrupt(int64_t chunk) { return at(chunk).exchange(kCorrupt) != kCorrupt; }

 private:
  enum : uint8_t { kUnjudged = 0, kSound = 1, kCorrupt = 2 };

  std::atomic<uint8_t>& at(int64_t chunk) const { return verdicts_[static_cast<size_t>(chunk)]; }

  // make_unique<T[]> value-initialises: every chunk starts kUnjudged.
  const std::unique_ptr<std::atomic<uint8_t>[]> verdicts_;
};

}  // namespace h5feed::pipeline
