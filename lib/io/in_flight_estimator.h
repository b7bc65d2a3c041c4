#pragma once
// How many bytes a reader should have on their way at once to keep what serves them busy, a disk
// or a network link: the bytes in flight that hide a request's latency are bandwidth x latency
// (Little's law; TCP's bandwidth-delay product), measured from the reader's own requests:
//   latency    a statistic of recent requests' latencies (64): `Latency` below
//   bandwidth  the most bytes completed per window (`window_seconds`, or two latencies when
//              longer) over recent windows (`history_seconds`)
// The target is twice their product plus one request, so the server stays busy while answers
// come back unevenly. Too small a target measures a bandwidth that is too small, but the
// doubling makes the next target larger, until the server itself limits what is measured.
//
// Thread-safety: every member may be called from many threads at once (internal mutex).

#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>

namespace h5feed::io {

class InFlightEstimator {
 public:
  using Clock = std::chrono::steady_clock;

  enum class Latency {
    // The median: a disk's time per request is not one delay. Where the reader uses chunks
    // more slowly than the disk serves them, it is a request's own time, and the target a few
    // requests; where the disk is the limit, its response grows with what is queued, and the
    // target with it, so the reader keeps deepening its queue up to the limit it is granted.
    // Not the least: on the project's virtual disk the least was a read its host served from
    // its own cache, a quarter of the usual, which held the target at two requests where the
    // disk served four streams twice as fast as one (docs/reader.md, "Reading from the disk").
    kMedian,
    // The least: a link's round trip is its propagation delay, which queueing only adds to
    // (as BBR measures it), with latencies the times to a response's first byte.
    kLeast,
  };

  struct Settings {
    double window_seconds;
    // A disk's share changes as soon as another reader starts: a short history. Several
    // processes reading one device share its queue, each getting bandwidth in proportion to
    // the bytes it has in flight; each one's target follows what it gets, up to the same
    // limit, so none keeps the queue for itself.
    double history_seconds;
    Latency latency;
    uint64_t unmeasured_requests;  // the target before anything was measured
    // The target is never less. A disk (the project's virtual disk as any SSD) serves several
    // requests at once far faster than one after another: where the workers use chunks more
    // slowly than it serves them (a zstd file on two cores), the estimate alone asks for two,
    // and the disk then serves them one at a time (docs/reader.md, "Reading from the disk").
    uint64_t least_requests;
  };
  static constexpr Settings kDisk{0.1, 1, Latency::kMedian, 8, 8};
  static constexpr Settings kLink{0.25, 10, Latency::kLeast, 8, 2};

  explicit InFlightEstimator(Settings settings) : settings_(settings) {}

  // A request of `bytes` that went out at `start` and completed at `end`, `latency_seconds`
  // after it went out by the settings' measure (none: 0).
  void Record(uint64_t bytes, double latency_seconds, Clock::time_point start,
              Clock::time_point end);

  // The bytes to keep in flight when requests are about `request_bytes` each: 2 x bandwidth x
  // latency + request_bytes, at least two requests; before anything was measured,
  // `unmeasured_requests`.
  uint64_t InFlightTarget(uint64_t request_bytes) const;

  double latency_seconds() const;   // 0 before any sample
  double bytes_per_second() const;  // 0 before a window closed

 private:
  struct Sample {
    Clock::time_point at;
    double value;
  };
  // Under mutex_:
  void Roll(Clock::time_point now);  // closes the window when it is over
  double LatencyStatistic() const;
  double MostRate() const;

  const Settings settings_;
  mutable std::mutex mutex_;
  // State below is protected by mutex_.
  std::deque<Sample> latencies_;  // seconds
  std::deque<Sample> rates_;      // bytes per second
  Clock::time_point window_start_{};
  uint64_t window_bytes_ = 0;
};

}  // namespace h5feed::io
