// InFlightEstimator (io/in_flight_estimator.h): the in-flight target from the requests' own
// timings, with a disk's settings (the median latency) and a link's (the least).

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>

#include "io/in_flight_estimator.h"

namespace h5feed::io {
namespace {

using Clock = InFlightEstimator::Clock;
using std::chrono::microseconds;
using std::chrono::milliseconds;

// A request of `bytes` completed at `end` after `seconds`, its latency all of that time.
void RecordRead(InFlightEstimator& estimator, uint64_t bytes, Clock::time_point end,
                double seconds) {
  const auto took =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  estimator.Record(bytes, seconds, end - took, end);
}

TEST_CASE("before anything is measured the target is the settings' requests") {
  InFlightEstimator disk(InFlightEstimator::kDisk);
  CHECK(disk.InFlightTarget(1000) == 8000);
  CHECK(disk.latency_seconds() == 0);
  CHECK(disk.bytes_per_second() == 0);
  InFlightEstimator link(InFlightEstimator::kLink);
  CHECK(link.InFlightTarget(1 << 20) == 8u << 20);
}

TEST_CASE("a disk's target is twice bandwidth x the median response time, plus a request") {
  InFlightEstimator estimator(InFlightEstimator::kDisk);
  const Clock::time_point t0 = Clock::now();
  // 1 MB reads completing every 2.5 ms for 0.25 s (400 MB/s); a quarter took 10 ms, the rest
  // 20 ms (queued behind others).
  for (int i = 0; i < 100; ++i) {
    RecordRead(estimator, 1'000'000, t0 + microseconds(20'000 + 2'500 * i),
               i % 4 == 0 ? 0.010 : 0.020);
  }
  RecordRead(estimator, 1'000'000, t0 + milliseconds(420), 0.020);  // closes a window
  CHECK(estimator.latency_seconds() == doctest::Approx(0.020));
  const double rate = estimator.bytes_per_second();
  CHECK(rate > 3e8);
  CHECK(rate < 5e8);
  const double target = static_cast<double>(estimator.InFlightTarget(1'000'000));
  CHECK(target == doctest::Approx(2 * rate * 0.020 + 1e6).epsilon(0.01));
}

TEST_CASE("a disk's target follows the bandwidth a reader gets: it grows while the disk keeps up") {
  // The same 20 ms reads, twice as many completed per window: twice the target.
  auto target_at = [](int reads_per_window) {
    InFlightEstimator estimator(InFlightEstimator::kDisk);
    const Clock::time_point t0 = Clock::now();
    for (int w = 0; w < 3; ++w) {
      for (int i = 0; i < reads_per_window; ++i) {
        RecordRead(estimator, 1'000'000,
                   t0 + milliseconds(100 * w) + microseconds(100'000 * i / reads_per_window),
                   0.020);
      }
    }
    return estimator.InFlightTarget(1'000'000);
  };
  const double small = static_cast<double>(target_at(40));
  const double large = static_cast<double>(target_at(80));
  CHECK((large - 1e6) == doctest::Approx(2 * (small - 1e6)).epsilon(0.1));
}

TEST_CASE("a disk that answers at once still gets eight requests in flight, a link two") {
  InFlightEstimator disk(InFlightEstimator::kDisk);
  InFlightEstimator link(InFlightEstimator::kLink);
  const Clock::time_point t0 = Clock::now();
  for (int i = 0; i < 40; ++i) {  // 0.4 s: past a window of each
    RecordRead(disk, 100, t0 + milliseconds(10 * i), 1e-6);
    RecordRead(link, 100, t0 + milliseconds(10 * i), 1e-6);
  }
  CHECK(disk.InFlightTarget(1'000'000) == 8'000'000);
  CHECK(link.InFlightTarget(1'000'000) == 2'000'000);
}

TEST_CASE("a link's target is twice bandwidth x the least round trip, plus a request") {
  InFlightEstimator link(InFlightEstimator::kLink);
  const Clock::time_point start = Clock::now();
  // 50 MB/s for two seconds in transfers of 1 MB every 20 ms, each 20 ms to its first byte
  // (one of them quicker: the least round trip counts, queueing only adds).
  for (int i = 0; i <= 100; ++i) {
    const Clock::time_point end = start + milliseconds(20 * i);
    link.Record(1'000'000, i == 40 ? 0.010 : 0.020, end - milliseconds(40), end);
  }
  CHECK(link.latency_seconds() == doctest::Approx(0.010));
  CHECK(link.bytes_per_second() == doctest::Approx(50e6).epsilon(0.1));
  const double target = static_cast<double>(link.InFlightTarget(100000));
  CHECK(target == doctest::Approx(2 * 50e6 * 0.010 + 100000).epsilon(0.1));
  CHECK(link.InFlightTarget(4000000) == 8000000);  // never below two requests
}

TEST_CASE("a link's target too small to fill it measures less, and grows") {
  // A link of 100 MB/s and 20 ms: in flight D bytes deliver D / 20 ms per second. Starting
  // from eight 64 KiB requests, each target measured becomes the next: it doubles until the
  // link limits it, within a few rounds.
  const double link_rate = 100e6;
  const double trip = 0.020;
  const uint64_t request = 64 << 10;
  InFlightEstimator link(InFlightEstimator::kLink);
  Clock::time_point now = Clock::now();
  uint64_t target = link.InFlightTarget(request);
  for (int round = 0; round < 12; ++round) {
    const double rate = std::min(link_rate, static_cast<double>(target) / trip);
    // One second at that rate, in requests completing evenly.
    const int completions = static_cast<int>(rate / static_cast<double>(request));
    for (int i = 0; i < completions; ++i) {
      now += microseconds(static_cast<int64_t>(1e6 / completions));
      RecordRead(link, request, now, trip);
    }
    target = link.InFlightTarget(request);
  }
  CHECK(static_cast<double>(target) >= 2 * link_rate * trip * 0.9);
}

}  // namespace
}  // namespace h5feed::io
