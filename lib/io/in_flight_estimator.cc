// InFlightEstimator (in_flight_estimator.h).
#include "io/in_flight_estimator.h"

#include <algorithm>
#include <vector>

namespace h5feed::io {
namespace {

constexpr size_t kLatencySamples = 64;

double Seconds(InFlightEstimator::Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

void InFlightEstimator::Roll(Clock::time_point now) {
  const double window = std::max(settings_.window_seconds, 2 * LatencyStatistic());
  const double elapsed = Seconds(now - window_start_);
  if (elapsed < window) return;
  rates_.push_back({now, static_cast<double>(window_bytes_) / elapsed});
  window_bytes_ = 0;
  window_start_ = now;
  while (!rates_.empty() && Seconds(now - rates_.front().at) > settings_.history_seconds) {
    rates_.pop_front();
  }
}

void InFlightEstimator::Record(uint64_t bytes, double latency_seconds, Clock::time_point start,
                               Clock::time_point end) {
  std::lock_guard lock(mutex_);
  // The first request opens the first window: its bytes were on their way from its start.
  if (window_start_ == Clock::time_point{}) window_start_ = start;
  Roll(end);
  window_bytes_ += bytes;
  if (latency_seconds > 0) {
    latencies_.push_back({end, latency_seconds});
    if (latencies_.size() > kLatencySamples) latencies_.pop_front();
  }
}

double InFlightEstimator::LatencyStatistic() const {
  if (latencies_.empty()) return 0;
  std::vector<double> seconds;
  seconds.reserve(latencies_.size());
  for (const Sample& sample : latencies_) seconds.push_back(sample.value);
  if (settings_.latency == Latency::kLeast)
    return *std::min_element(seconds.begin(), seconds.end());
  const auto at = seconds.begin() + static_cast<std::ptrdiff_t>(seconds.size() / 2);
  std::nth_element(seconds.begin(), at, seconds.end());
  return *at;
}

double InFlightEstimator::MostRate() const {
  double most = 0;
  for (const Sample& sample : rates_) most = std::max(most, sample.value);
  return most;
}

uint64_t InFlightEstimator::InFlightTarget(uint64_t request_bytes) const {
  std::lock_guard lock(mutex_);
  const double rate = MostRate();
  const double latency = LatencyStatistic();
  if (rate <= 0 || latency <= 0) return settings_.unmeasured_requests * request_bytes;
  const auto product = static_cast<uint64_t>(2 * rate * latency);
  return std::max(product + request_bytes, settings_.least_requests * request_bytes);
}

double InFlightEstimator::latency_seconds() const {
  std::lock_guard lock(mutex_);
  return LatencyStatistic();
}

double InFlightEstimator::bytes_per_second() const {
  std::lock_guard lock(mutex_);
  return MostRate();
}

}  // namespace h5feed::io
