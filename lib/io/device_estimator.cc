// DeviceEstimator (device_estimator.h).
#include "io/device_estimator.h"

#include <algorithm>
#include <vector>

namespace h5feed::io {
namespace {

constexpr size_t kResponseSamples = 64;

double Seconds(DeviceEstimator::Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

void DeviceEstimator::Roll(Clock::time_point now) {
  if (window_start_ == Clock::time_point{}) {
    window_start_ = now;
    return;
  }
  const double window = std::max(kWindowSeconds, 2 * MedianResponse());
  const double elapsed = Seconds(now - window_start_);
  if (elapsed < window) return;
  rates_.push_back({now, static_cast<double>(window_bytes_) / elapsed});
  window_bytes_ = 0;
  window_start_ = now;
  while (!rates_.empty() && Seconds(now - rates_.front().at) > kHistorySeconds) {
    rates_.pop_front();
  }
}

void DeviceEstimator::Record(uint64_t bytes, Clock::time_point start, Clock::time_point end) {
  std::lock_guard lock(mutex_);
  // The first read of a window opens it: its bytes were on their way before the window began.
  if (window_start_ == Clock::time_point{}) window_start_ = start;
  Roll(end);
  window_bytes_ += bytes;
  responses_.push_back({end, Seconds(end - start)});
  if (responses_.size() > kResponseSamples) responses_.pop_front();
}

double DeviceEstimator::MedianResponse() const {
  if (responses_.empty()) return 0;
  std::vector<double> seconds;
  seconds.reserve(responses_.size());
  for (const TimeSample& sample : responses_) seconds.push_back(sample.seconds);
  const auto at = seconds.begin() + static_cast<std::ptrdiff_t>(seconds.size() / 2);
  std::nth_element(seconds.begin(), at, seconds.end());
  return *at;
}

double DeviceEstimator::MostRate() const {
  double most = 0;
  for (const RateSample& sample : rates_) most = std::max(most, sample.bytes_per_second);
  return most;
}

uint64_t DeviceEstimator::InFlightTarget(uint64_t request_bytes) const {
  std::lock_guard lock(mutex_);
  const double rate = MostRate();
  const double response = MedianResponse();
  if (rate <= 0 || response <= 0) return 4 * request_bytes;
  const auto product = static_cast<uint64_t>(2 * rate * response);
  return std::max(product + request_bytes, 2 * request_bytes);
}

double DeviceEstimator::response_seconds() const {
  std::lock_guard lock(mutex_);
  return MedianResponse();
}

double DeviceEstimator::bytes_per_second() const {
  std::lock_guard lock(mutex_);
  return MostRate();
}

}  // namespace h5feed::io
