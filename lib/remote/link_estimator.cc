// LinkEstimator (link_estimator.h).
#include "remote/link_estimator.h"

#include <algorithm>

namespace h5feed::remote {
namespace {

constexpr size_t kTripSamples = 64;

}  // namespace

void LinkEstimator::Roll(Clock::time_point now) {
  if (window_start_ == Clock::time_point{}) {
    window_start_ = now;
    return;
  }
  const double trip = LeastTrip();
  const double window = std::max(kWindowSeconds, 2 * trip);
  const double elapsed = std::chrono::duration<double>(now - window_start_).count();
  if (elapsed < window) return;
  rates_.push_back({now, static_cast<double>(window_bytes_) / elapsed});
  window_bytes_ = 0;
  window_start_ = now;
  while (!rates_.empty() &&
         std::chrono::duration<double>(now - rates_.front().at).count() > kHistorySeconds) {
    rates_.pop_front();
  }
}

void LinkEstimator::Record(const TransferTiming& timing, Clock::time_point end) {
  std::lock_guard lock(mutex_);
  Roll(end);
  window_bytes_ += timing.bytes;
  if (timing.first_byte_seconds > 0) {
    trips_.push_back({end, timing.first_byte_seconds});
    if (trips_.size() > kTripSamples) trips_.pop_front();
  }
}

double LinkEstimator::LeastTrip() const {
  double least = 0;
  for (const TripSample& sample : trips_) {
    if (least == 0 || sample.seconds < least) least = sample.seconds;
  }
  return least;
}

double LinkEstimator::MostRate() const {
  double most = 0;
  for (const RateSample& sample : rates_) most = std::max(most, sample.bytes_per_second);
  return most;
}

uint64_t LinkEstimator::InFlightTarget(uint64_t request_bytes) const {
  std::lock_guard lock(mutex_);
  const double rate = MostRate();
  const double trip = LeastTrip();
  if (rate <= 0 || trip <= 0) return 8 * request_bytes;
  const auto product = static_cast<uint64_t>(2 * rate * trip);
  return std::max(product + request_bytes, 2 * request_bytes);
}

}  // namespace h5feed::remote

namespace h5feed::remote {

double LinkEstimator::round_trip_seconds() const {
  std::lock_guard lock(mutex_);
  return LeastTrip();
}

double LinkEstimator::bytes_per_second() const {
  std::lock_guard lock(mutex_);
  return MostRate();
}

}  // namespace h5feed::remote
