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

TEST_CASE("the target is twice bandwidth x the least response time, plus a request") {
  DeviceEstimator estimator;
  const Clock::time_point t0 = Clock::now();
  // 1 MB reads each taking 10 ms (20 ms when queued), 4 at a time: 100 MB in 0.25 s
  // completed, 400 MB/s.
  for (int i = 0; i < 100; ++i) {
    const Clock::time_point end = t0 + milliseconds(10 + 10 * (i / 4) / 4 + 10);
    const milliseconds took(i % 4 == 0 ? 10 : 20);
    estimator.Record(1'000'000, end - took, end);
  }
  estimator.Record(1'000'000, t0 + milliseconds(400), t0 + milliseconds(420));  // closes a window
  CHECK(estimator.response_seconds() == doctest::Approx(0.010));
  const double rate = estimator.bytes_per_second();
  CHECK(rate > 1e8);
  const double target = static_cast<double>(estimator.InFlightTarget(1'000'000));
  CHECK(target == doctest::Approx(2 * rate * 0.010 + 1e6).epsilon(0.01));
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
