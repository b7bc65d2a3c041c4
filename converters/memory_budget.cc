#include "memory_budget.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <utility>

#include "byte_size.h"
#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::converters {

int64_t ParseMemorySize(std::string_view text) {
  const auto fail = [&]() -> int64_t {
    throw MakeError(
        ErrorCode::kInvalidArgument,
        "memory size '{}' is not a size: give it with a unit, e.g. 512M or 2G (K, M, G, T are "
        "powers of 1024), or in bytes",
        text);
  };
  size_t at = 0;
  double number = 0;
  int digits = 0;
  for (; at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])); ++at, ++digits) {
    number = number * 10 + (text[at] - '0');
  }
  if (at < text.size() && text[at] == '.') {
    double scale = 0.1;
    for (++at; at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]));
         ++at, ++digits, scale /= 10) {
      number += (text[at] - '0') * scale;
    }
  }
  if (digits == 0) return fail();
  std::string unit;
  for (; at < text.size(); ++at) {
    unit += static_cast<char>(std::toupper(static_cast<unsigned char>(text[at])));
  }
  if (unit.ends_with("IB")) {
    unit.resize(unit.size() - 2);
    if (unit.empty()) return fail();  // "iB" alone
  } else if (unit.ends_with("B")) {
    unit.resize(unit.size() - 1);  // "MB" is "M"; "B" alone is bytes
  }
  static constexpr std::string_view kUnits = "KMGT";
  double bytes = number;
  if (!unit.empty()) {
    const size_t power = kUnits.find(unit);
    if (unit.size() != 1 || power == std::string_view::npos) return fail();
    for (size_t i = 0; i <= power; ++i) bytes *= 1024;
  }
  // Out of int64_t's range first: converting such a double to an integer is undefined.
  if (bytes >= 9.2e18) return fail();
  if (unit.empty() && bytes != std::trunc(bytes)) return fail();  // a fraction of a byte
  return static_cast<int64_t>(bytes);
}

MemoryBudget::MemoryBudget(int64_t limit) : limit_(limit) {
  if (limit < kMinMemoryLimit) {
    throw MakeError(
        ErrorCode::kInvalidArgument,
        "a memory limit of {} ({} bytes) is too small: a conversion needs at least {} (a "
        "number without a unit counts bytes: 512M or 2G)",
        ByteSize(limit), limit, ByteSize(kMinMemoryLimit));
  }
}

MemoryBudget::Lease::Lease(Lease&& other) noexcept
    : budget_(std::exchange(other.budget_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

MemoryBudget::Lease& MemoryBudget::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    Release();
    budget_ = std::exchange(other.budget_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void MemoryBudget::Lease::Release() {
  if (budget_ != nullptr && bytes_ > 0) budget_->Give(bytes_);
  bytes_ = 0;
}

int64_t MemoryBudget::lendable() const {
  std::lock_guard lock(mutex_);
  return limit_ - reserved_;
}

void MemoryBudget::Reserve(int64_t bytes) {
  std::lock_guard lock(mutex_);
  if (bytes > limit_ - reserved_ - lent_) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "the memory limit of {} cannot set aside {} for chunk buffers ({} free)",
                    ByteSize(limit_), ByteSize(bytes), ByteSize(limit_ - reserved_ - lent_));
  }
  reserved_ += bytes;
  peak_ = std::max(peak_, reserved_ + lent_);
}

void MemoryBudget::Unreserve(int64_t bytes) {
  {
    std::lock_guard lock(mutex_);
    reserved_ -= bytes;
  }
  turn_.notify_all();
}

bool MemoryBudget::TryGrow(Lease& lease, int64_t bytes) {
  if (lease.bytes_ >= bytes) return true;
  std::lock_guard lock(mutex_);
  const int64_t more = bytes - lease.bytes_;
  if (serving_ticket_ != next_ticket_ || more > limit_ - reserved_ - lent_) return false;
  lent_ += more;
  peak_ = std::max(peak_, reserved_ + lent_);
  lease.budget_ = this;
  lease.bytes_ = bytes;
  return true;
}

MemoryBudget::Lease MemoryBudget::Acquire(int64_t bytes,
                                          const std::function<void()>& before_waiting) {
  Lease lease;
  std::unique_lock lock(mutex_);
  if (bytes > limit_ - reserved_) {
    throw MakeError(ErrorCode::kInternal,
                    "a lease of {} asked of a memory budget that can lend only {}", ByteSize(bytes),
                    ByteSize(limit_ - reserved_));
  }
  const auto free_now = [&] { return limit_ - reserved_ - lent_ >= bytes; };
  if (serving_ticket_ == next_ticket_ && free_now()) {
    lent_ += bytes;
  } else {
    const uint64_t ticket = next_ticket_++;
    if (before_waiting) {
      lock.unlock();
      before_waiting();
      lock.lock();
    }
    turn_.wait(lock, [&] { return serving_ticket_ == ticket && free_now(); });
    lent_ += bytes;
    ++serving_ticket_;
    // The next in line may fit in what is left.
    turn_.notify_all();
  }
  peak_ = std::max(peak_, reserved_ + lent_);
  lease.budget_ = this;
  lease.bytes_ = bytes;
  return lease;
}

bool MemoryBudget::has_waiters() const {
  std::lock_guard lock(mutex_);
  return serving_ticket_ != next_ticket_;
}

int64_t MemoryBudget::peak() const {
  std::lock_guard lock(mutex_);
  return peak_;
}

void MemoryBudget::Give(int64_t bytes) {
  {
    std::lock_guard lock(mutex_);
    lent_ -= bytes;
  }
  turn_.notify_all();
}

}  // namespace h5feed::converters
