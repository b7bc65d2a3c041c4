// DeviceEstimator (io/device_estimator.h): the in-flight target from the reads' own timings.

#include <doctest/doctest.h>

#include <chrono>

#include "io/device_estimator.h"

namespace h5feed::io {
namespace {

using Clock = DeviceEstimator::Clock;
using std::chrono::milliseconds;

TEST_CASE("before anything is measured the target is four requests") {
  DeviceEstimator estimator;
  CHECK(estimator.InFlightTarget(1000) == 4000);
  CHECK(estimator.response_seconds() == 0);
  CHECK(estimator.bytes_per_second() == 0);
}

TEST_CASE("the target is twice bandwidth x the median response time, plus a request") {
  DeviceEstimator estimator;
  const Clock::time_point t0 = Clock::now();
  // 1 MB reads completing every 2.5 ms for 0.25 s (400 MB/s); a quarter took 10 ms, the rest
  // 20 ms (queued behind others).
  for (int i = 0; i < 100; ++i) {
    const Clock::time_point end = t0 + std::chrono::microseconds(20'000 + 2'500 * i);
    const milliseconds took(i % 4 == 0 ? 10 : 20);
    estimator.Record(1'000'000, end - took, end);
  }
  estimator.Record(1'000'000, t0 + milliseconds(400), t0 + milliseconds(420));  // closes a window
  CHECK(estimator.response_seconds() == doctest::Approx(0.020));
  const double rate = estimator.bytes_per_second();
  CHECK(rate > 3e8);
  CHECK(rate < 5e8);
  const double target = static_cast<double>(estimator.InFlightTarget(1'000'000));
  CHECK(target == doctest::Approx(2 * rate * 0.020 + 1e6).epsilon(0.01));
}

TEST_CASE("the target follows the bandwidth a reader gets: it grows while the disk keeps up") {
  // The same 20 ms reads, twice as many completed per window: twice the target.
  auto target_at = [](int reads_per_window) {
    DeviceEstimator estimator;
    const Clock::time_point t0 = Clock::now();
    for (int w = 0; w < 3; ++w) {
      for (int i = 0; i < reads_per_window; ++i) {
        const Clock::time_point end =
            t0 + milliseconds(100 * w) + std::chrono::microseconds(100'000 * i / reads_per_window);
        estimator.Record(1'000'000, end - milliseconds(20), end);
      }
    }
    return estimator.InFlightTarget(1'000'000);
  };
  const double small = static_cast<double>(target_at(10));
  const double large = static_cast<double>(target_at(20));
  CHECK((large - 1e6) == doctest::Approx(2 * (small - 1e6)).epsilon(0.1));
}

TEST_CASE("a device that answers at once still gets two requests in flight") {
  DeviceEstimator estimator;
  const Clock::time_point t0 = Clock::now();
  for (int i = 0; i < 20; ++i) {
    const Clock::time_point end = t0 + milliseconds(10 * i);
    estimator.Record(100, end - std::chrono::microseconds(1), end);
  }
  CHECK(estimator.InFlightTarget(1'000'000) == 2'000'000);
}

}  // namespace
}  // namespace h5feed::io
