#pragma once
// How many bytes a local file should have on their way at once to keep its device busy: the
// bytes in flight that hide a request's time are bandwidth x response time (Little's law), as
// for a network link (remote/link_estimator.h), measured from the reads ahead themselves:
//   response time  the median time of recent reads ahead (64)
//   bandwidth      the most bytes completed per window (0.1 s, or two response times when
//                  longer) over recent windows (1 s: a disk's share changes as soon as another
//                  reader starts)
// The target is twice their product plus one request. Where the reader uses chunks more slowly
// than the disk serves them, the bandwidth is that use and the response a request's own time:
// the target is what hides a response at that rate, a few requests. Where the disk is the
// limit, its response grows with what is queued, and the target with it, so the reader keeps
// deepening its queue up to the limit it is granted (LocalFile::LimitPrefetch). Not the least
// response time, as a network link's estimate takes (propagation delay, which queueing only
// adds to): a disk's time per request is not one delay, and on the project's virtual disk the
// least was a read its host served from its own cache, a quarter of the usual, which held the
// target at two requests where the disk served four streams twice as fast as one
// (docs/reader.md, "Reading from the disk").
//
// Several processes reading one device share its queue, each getting bandwidth in proportion
// to the bytes it has in flight; each one's target follows what it gets, up to the same limit,
// so none keeps the queue for itself.
//
// Thread-safety: every member may be called from many threads at once (internal mutex).

#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>

namespace h5feed::io {

class DeviceEstimator {
 public:
  using Clock = std::chrono::steady_clock;

  // A read of `bytes` that started at `start` and completed at `end`.
  void Record(uint64_t bytes, Clock::time_point start, Clock::time_point end);

  // The bytes to keep in flight when requests are about `request_bytes` each: 2 x bandwidth x
  // response time + request_bytes, at least two requests; before anything was measured, four.
  uint64_t InFlightTarget(uint64_t request_bytes) const;

  double response_seconds() const;  // the median; 0 before any sample
  double bytes_per_second() const;  // 0 before a window closed

 private:
  static constexpr double kWindowSeconds = 0.1;
  static constexpr double kHistorySeconds = 1;
  struct RateSample {
    Clock::time_point at;
    double bytes_per_second;
  };
  struct TimeSample {
    Clock::time_point at;
    double seconds;
  };
  // Under mutex_:
  void Roll(Clock::time_point now);  // closes the window when it is over
  double MedianResponse() const;
  double MostRate() const;

  mutable std::mutex mutex_;
  // State below is protected by mutex_.
  std::deque<TimeSample> responses_;
  std::deque<RateSample> rates_;
  Clock::time_point window_start_{};
  uint64_t window_bytes_ = 0;
};

}  // namespace h5feed::io
