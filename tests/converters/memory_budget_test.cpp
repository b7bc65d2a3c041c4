#include "memory_budget.h"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "h5feed/error.h"
#include "support/caught_error.h"

namespace h5feed::converters {
namespace {

using testing::CaughtError;
constexpr int64_t kMiB = int64_t{1} << 20;

// Polls `done` for up to two seconds: a request that should be served soon.
bool Soon(const std::atomic<bool>& done) {
  for (int i = 0; i < 400 && !done.load(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return done.load();
}

// Whether `done` stays false for 100 ms: a request that should keep waiting.
bool StillWaiting(const std::atomic<bool>& done) {
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return !done.load();
}

TEST_CASE("memory sizes are read with binary units, and anything else is refused") {
  CHECK(ParseMemorySize("512M") == 512 * kMiB);
  CHECK(ParseMemorySize("2G") == 2048 * kMiB);
  CHECK(ParseMemorySize("2g") == 2048 * kMiB);
  CHECK(ParseMemorySize("1.5GiB") == 1536 * kMiB);
  CHECK(ParseMemorySize("64MB") == 64 * kMiB);
  CHECK(ParseMemorySize("100K") == 102400);
  CHECK(ParseMemorySize("1T") == 1024 * 1024 * kMiB);
  CHECK(ParseMemorySize("33554432") == 32 * kMiB);
  CHECK(ParseMemorySize("4096B") == 4096);
  for (const char* bad :
       {"", "M", "2X", "-1G", "1.5", "2 G", "1e9", "GiB", "2iB", "1PB", "99999999999999999999"}) {
    CAPTURE(bad);
    const Error e = CaughtError([&] { ParseMemorySize(bad); });
    CHECK(e.code() == ErrorCode::kInvalidArgument);
    CHECK(std::string(e.what()).find("512M") != std::string::npos);
  }
}

TEST_CASE("a budget below the minimum is refused, saying the minimum") {
  const Error e = CaughtError([] { MemoryBudget budget(16 * kMiB); });
  CHECK(e.code() == ErrorCode::kInvalidArgument);
  CHECK(std::string(e.what()).find("32.0 MiB") != std::string::npos);
}

TEST_CASE("a lease is granted at once while there is room, and given back when destroyed") {
  MemoryBudget budget(100 * kMiB);
  {
    MemoryBudget::Lease a = budget.Acquire(60 * kMiB);
    MemoryBudget::Lease b = budget.Acquire(40 * kMiB);
    CHECK(a.bytes() == 60 * kMiB);
    CHECK(budget.peak() == 100 * kMiB);
    MemoryBudget::Lease moved = std::move(b);
    CHECK(b.bytes() == 0);
    CHECK_FALSE(budget.TryGrow(moved, 41 * kMiB));
  }
  MemoryBudget::Lease all = budget.Acquire(100 * kMiB);  // everything came back
  CHECK(all.bytes() == 100 * kMiB);
}

TEST_CASE("a reservation shrinks what leases can hold, until it is given back") {
  MemoryBudget budget(100 * kMiB);
  budget.Reserve(30 * kMiB);
  CHECK(budget.lendable() == 70 * kMiB);
  CHECK(budget.fits(70 * kMiB));
  CHECK_FALSE(budget.fits(71 * kMiB));
  MemoryBudget::Lease lease = budget.Acquire(50 * kMiB);
  const Error e = CaughtError([&] { budget.Reserve(21 * kMiB); });
  CHECK(e.code() == ErrorCode::kInvalidArgument);
  CHECK(budget.Acquire(20 * kMiB).bytes() == 20 * kMiB);
  budget.Unreserve(30 * kMiB);
  CHECK(budget.lendable() == 100 * kMiB);
  CHECK(CaughtError([&] { budget.Acquire(101 * kMiB); }).code() == ErrorCode::kInternal);
}

TEST_CASE("TryGrow grows a lease while there is room and nobody waits, and never blocks") {
  MemoryBudget budget(100 * kMiB);
  MemoryBudget::Lease lease;
  CHECK(budget.TryGrow(lease, 10 * kMiB));
  CHECK(budget.TryGrow(lease, 5 * kMiB));  // already that large
  CHECK(lease.bytes() == 10 * kMiB);
  CHECK(budget.TryGrow(lease, 90 * kMiB));
  CHECK_FALSE(budget.TryGrow(lease, 101 * kMiB));
  CHECK(lease.bytes() == 90 * kMiB);
}

TEST_CASE(
    "a request waits for enough to come back, and waiters are served first come, first "
    "served, so a small request cannot overtake a large one") {
  MemoryBudget budget(100 * kMiB);
  MemoryBudget::Lease held = budget.Acquire(70 * kMiB);
  std::atomic<bool> large_done{false}, small_done{false};
  MemoryBudget::Lease large, small;
  std::thread large_thread([&] {
    large = budget.Acquire(80 * kMiB);
    large_done = true;
  });
  for (int i = 0; i < 400 && !budget.has_waiters(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  REQUIRE(budget.has_waiters());
  // 30 MiB are free, but the large request came first: the small one queues behind it, and
  // TryGrow, which never queues, is refused.
  MemoryBudget::Lease grown;
  CHECK_FALSE(budget.TryGrow(grown, 10 * kMiB));
  std::thread small_thread([&] {
    small = budget.Acquire(10 * kMiB);
    small_done = true;
  });
  CHECK(StillWaiting(small_done));
  CHECK_FALSE(large_done.load());
  held.Release();
  CHECK(Soon(large_done));
  large_thread.join();
  CHECK(Soon(small_done));  // 80 + 10 fit in 100 together
  small_thread.join();
  CHECK_FALSE(budget.has_waiters());
  CHECK(budget.peak() <= 100 * kMiB);
}

TEST_CASE("before_waiting runs when a request must wait, and what it gives back is used") {
  MemoryBudget budget(100 * kMiB);
  MemoryBudget::Lease idle = budget.Acquire(90 * kMiB);  // kept by someone not using it
  int calls = 0;
  MemoryBudget::Lease lease = budget.Acquire(50 * kMiB, [&] {
    ++calls;
    idle.Release();
  });
  CHECK(calls == 1);
  CHECK(lease.bytes() == 50 * kMiB);
  // No wait, no call.
  MemoryBudget::Lease more = budget.Acquire(50 * kMiB, [&] { ++calls; });
  CHECK(calls == 1);
}

TEST_CASE("many threads leasing at random never hold more than the limit, and all finish") {
  MemoryBudget budget(64 * kMiB);
  std::vector<std::thread> threads;
  std::atomic<int> finished{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 random(static_cast<uint32_t>(t));
      MemoryBudget::Lease kept;
      for (int i = 0; i < 300; ++i) {
        const int64_t bytes = (1 + static_cast<int64_t>(random() % 64)) * kMiB;
        if (!budget.TryGrow(kept, bytes)) {
          kept.Release();  // as the image reader does before it waits
          kept = budget.Acquire(bytes);
        }
        if (random() % 4 == 0) kept.Release();
      }
      ++finished;
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(finished.load() == 8);
  CHECK(budget.peak() <= 64 * kMiB);
  CHECK(budget.Acquire(64 * kMiB).bytes() == 64 * kMiB);  // every lease came back
}

}  // namespace
}  // namespace h5feed::converters
