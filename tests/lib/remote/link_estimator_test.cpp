#include "remote/link_estimator.h"

#include <doctest/doctest.h>

#include <chrono>

namespace h5feed::remote {
namespace {

using Clock = LinkEstimator::Clock;
using std::chrono::milliseconds;

TEST_CASE("before anything is measured the target is eight requests") {
  LinkEstimator link;
  CHECK(link.InFlightTarget(1 << 20) == 8u << 20);
  CHECK(link.round_trip_seconds() == 0);
  CHECK(link.bytes_per_second() == 0);
}

TEST_CASE("the target is twice bandwidth x round trip, plus a request") {
  LinkEstimator link;
  const Clock::time_point start = Clock::now();
  // 50 MB/s for two seconds in transfers of 1 MB every 20 ms, each 20 ms to its first byte
  // (one of them quicker: the least round trip counts, queueing only adds).
  for (int i = 0; i <= 100; ++i) {
    const double first_byte = i == 40 ? 0.010 : 0.020;
    link.Record(TransferTiming{1000000, first_byte, 0.04}, start + milliseconds(20 * i));
  }
  CHECK(link.round_trip_seconds() == doctest::Approx(0.010));
  CHECK(link.bytes_per_second() == doctest::Approx(50e6).epsilon(0.1));
  const double target = static_cast<double>(link.InFlightTarget(100000));
  CHECK(target == doctest::Approx(2 * 50e6 * 0.010 + 100000).epsilon(0.1));
  // Never below two requests.
  CHECK(link.InFlightTarget(4000000) == 8000000);
}

TEST_CASE("a target too small to fill the link measures less, and grows") {
  // A link of 100 MB/s and 20 ms: in flight D bytes deliver D / 20 ms per second. Starting
  // from eight 64 KiB requests, each target measured becomes the next: it doubles until the
  // link limits it, within a few rounds.
  const double link_rate = 100e6;
  const double trip = 0.020;
  const uint64_t request = 64 << 10;
  LinkEstimator link;
  Clock::time_point now = Clock::now();
  uint64_t target = link.InFlightTarget(request);
  for (int round = 0; round < 12; ++round) {
    const double rate = std::min(link_rate, static_cast<double>(target) / trip);
    // One second at that rate, in requests completing evenly.
    const int completions = static_cast<int>(rate / static_cast<double>(request));
    for (int i = 0; i < completions; ++i) {
      now += std::chrono::microseconds(static_cast<int64_t>(1e6 / completions));
      link.Record(TransferTiming{request, trip, trip}, now);
    }
    target = link.InFlightTarget(request);
  }
  CHECK(static_cast<double>(target) >= 2 * link_rate * trip * 0.9);
}

}  // namespace
}  // namespace h5feed::remote
