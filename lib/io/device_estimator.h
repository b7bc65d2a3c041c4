#pragma once
// How many bytes a local file should have on their way at once to keep its device busy: the
// bytes in flight that hide a request's time are bandwidth x response time (Little's law), as
// for a network link (remote/link_estimator.h), measured from the reads ahead themselves:
//   response time  the time a read ahead took, at the 10th percentile of recent ones: about a
//                  request alone on the device (queueing behind others only adds to it), but
//                  not the odd read a virtual disk's host served from its own cache, whose
//                  least time would make every later target too small
//   bandwidth      the most bytes completed per window (0.1 s, or two response times when
//                  longer) over recent windows (1 s: a disk's share changes as soon as another
//                  reader starts, and a reader that kept an old, larger share longer would keep
//                  more requests queued than the others)
// The target is twice their product plus one request. Too small a target measures a bandwidth
// that is too small, but the doubling makes the next target larger, until the device itself
// limits what is measured. A virtual disk that serves one stream at half the rate of four
// (docs/reader.md, "Reading from the disk") is such a device; so is an NVMe drive, whose rate
// needs dozens of requests at once.
//
// Several processes reading one device each measure the bandwidth they get and the response
// time they see. Their requests wait in one queue, so each gets bandwidth in proportion to the
// bytes it has in flight, and the target settles where every reader keeps the same: request /
// (1 - 2 x least response / response now). None takes the queue for itself.
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

  double response_seconds() const;  // the 10th percentile; 0 before any sample
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
  double LowResponse() const;
  double MostRate() const;

  mutable std::mutex mutex_;
  // State below is protected by mutex_.
  std::deque<TimeSample> responses_;
  std::deque<RateSample> rates_;
  Clock::time_point window_start_{};
  uint64_t window_bytes_ = 0;
};

}  // namespace h5feed::io
