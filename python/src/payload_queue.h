#pragma once
// The bounded hand-over between h5feed.write's feeding thread (the interpreter's, putting each
// sample's payload in the stored order) and the conversion's reading threads (taking the
// payload of the row each reads). Memory is bounded by bytes, not by samples, so that a
// dataset of large images holds as much as one of small ones: a payload waits for room while
// the queue holds `capacity` bytes or more, and is taken alone when it is larger than that.
//
// Why this cannot deadlock: payloads arrive in the stored order and every group of the
// conversion reads its rows in that order, so the row the earliest unfinished group waits for
// is always the next to arrive, and a full queue holds only rows some running group will take.
//
// Thread-safety: every member may be called from any thread at once.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "sample_payload.h"

namespace h5feed::python {

class PayloadQueue {
 public:
  explicit PayloadQueue(int64_t capacity) : capacity_(capacity) {}
  PayloadQueue(const PayloadQueue&) = delete;
  PayloadQueue& operator=(const PayloadQueue&) = delete;

  enum class PutResult { kTaken, kFull, kClosed };
  // Takes `payload` (moved from) as source row `row`'s when there is room within `wait`;
  // kFull when there was none by then (the caller tries again), kClosed once Close was called
  // (the payload is left alone).
  PutResult TryPut(int64_t row, SamplePayload& payload, std::chrono::milliseconds wait);

  // Waits for row `row`'s payload and hands it over. Throws Error(kCancelled) once closed
  // without it.
  SamplePayload Take(int64_t row);

  // Wakes every waiter: puts are refused and takes of absent rows throw from now on.
  void Close();
  // Drops every payload it holds.
  void Clear();

  int64_t held_bytes() const;

 private:
  const int64_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  // State below is guarded by mutex_.
  std::unordered_map<int64_t, SamplePayload> payloads_;
  int64_t held_ = 0;
  bool closed_ = false;
};

}  // namespace h5feed::python
