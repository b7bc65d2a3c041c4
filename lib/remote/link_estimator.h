#pragma once
// How much a remote file should have on its way at once to keep its link busy: the bytes in
// flight that hide the round trip are bandwidth x round-trip time (Little's law; TCP's
// bandwidth-delay product), measured from the transfers themselves the way BBR does:
//   round trip  the least time to first byte among recent transfers (queueing only adds to it)
//   bandwidth   the most bytes completed per window (0.25 s, or two round trips when longer)
//               over recent windows (10 s)
// The target is twice their product plus one request, so the link stays busy while answers
// come back unevenly. Too small a target measures a bandwidth that is too small, but the
// doubling makes the next target larger, until the link itself limits what is measured.
//
// Thread-safety: every member may be called from many threads at once (internal mutex).

#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>

#include "remote/http_client.h"

namespace h5feed::remote {

class LinkEstimator {
 public:
  using Clock = std::chrono::steady_clock;

  // A transfer that completed at `end`.
  void Record(const TransferTiming& timing, Clock::time_point end);

  // The bytes to keep in flight when requests are about `request_bytes` each: 2 x bandwidth x
  // round trip + request_bytes, at least two requests; before anything was measured, eight.
  uint64_t InFlightTarget(uint64_t request_bytes) const;

  double round_trip_seconds() const;  // 0 before any sample
  double bytes_per_second() const;    // 0 before a window closed

 private:
  static constexpr double kWindowSeconds = 0.25;
  static constexpr double kHistorySeconds = 10;
  struct RateSample {
    Clock::time_point at;
    double bytes_per_second;
  };
  struct TripSample {
    Clock::time_point at;
    double seconds;
  };
  // Under mutex_:
  void Roll(Clock::time_point now);  // closes the window when it is over
  double LeastTrip() const;
  double MostRate() const;

  mutable std::mutex mutex_;
  // State below is protected by mutex_.
  std::deque<TripSample> trips_;
  std::deque<RateSample> rates_;
  Clock::time_point window_start_{};
  uint64_t window_bytes_ = 0;
};

}  // namespace h5feed::remote
