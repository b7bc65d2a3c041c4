#include "memory/slot_pool.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <future>
#include <set>
#include <thread>
#include <vector>

#include "h5feed/error.h"

namespace h5feed::memory {
namespace {

using namespace std::chrono_literals;

// Counts what passes through it, to check the pool's one allocation and its release.
class CountingAllocator final : public HostAllocator {
 public:
  void* Allocate(size_t bytes) override {
    ++allocations;
    allocated_bytes = bytes;
    return PageAlignedAllocator()->Allocate(bytes);
  }
  void Deallocate(void* region, size_t bytes) noexcept override {
    ++deallocations;
    PageAlignedAllocator()->Deallocate(region, bytes);
  }
  std::string_view name() const noexcept override { return "counting"; }

  std::atomic<int> allocations{0};
  std::atomic<int> deallocations{0};
  size_t allocated_bytes = 0;
};

TEST_CASE("a pool hands out every slot once until one is returned") {
  SlotPool pool(3, 100, PageAlignedAllocator());
  std::vector<SlotLease> leases;
  std::set<int> indices;
  for (int i = 0; i < 3; ++i) {
    std::optional<SlotLease> lease = pool.Acquire({});
    REQUIRE(lease);
    indices.insert(lease->index());
    leases.push_back(std::move(*lease));
  }
  CHECK(indices == std::set<int>{0, 1, 2});
  CHECK(pool.available() == 0);
  leases.pop_back();
  CHECK(pool.available() == 1);
  CHECK(pool.Acquire({}));
}

TEST_CASE("TryAcquire takes a free slot and returns at once when none is") {
  SlotPool pool(2, 100, PageAlignedAllocator());
  std::optional<SlotLease> first = pool.TryAcquire();
  std::optional<SlotLease> second = pool.TryAcquire();
  REQUIRE(first);
  REQUIRE(second);
  CHECK(first->index() != second->index());
  CHECK_FALSE(pool.TryAcquire());  // both leased: no wait, no slot
  const int freed = second->index();
  second.reset();
  std::optional<SlotLease> again = pool.TryAcquire();
  REQUIRE(again);
  CHECK(again->index() == freed);
}

TEST_CASE("slots are page-aligned, disjoint, and sized up to whole pages") {
  SlotPool pool(4, 5000, nullptr);  // null: the page-aligned default
  CHECK(pool.slot_bytes() == 8192);
  CHECK(pool.total_bytes() == 4 * 8192);
  std::vector<SlotLease> leases;
  for (int i = 0; i < 4; ++i) leases.push_back(*pool.Acquire({}));
  std::vector<uint8_t*> starts;
  for (auto& lease : leases) {
    CHECK(reinterpret_cast<uintptr_t>(lease.bytes().data()) % kPageBytes == 0);
    CHECK(lease.bytes().size() == 8192);
    starts.push_back(lease.bytes().data());
    std::memset(lease.bytes().data(), lease.index(), lease.bytes().size());
  }
  std::sort(starts.begin(), starts.end());
  for (size_t i = 1; i < starts.size(); ++i) CHECK(starts[i] >= starts[i - 1] + 8192);
  for (auto& lease : leases) {
    CHECK(lease.bytes()[0] == lease.index());
    CHECK(lease.bytes()[8191] == lease.index());
  }
}

TEST_CASE("a lease moved from owns nothing and returns its slot only once") {
  SlotPool pool(1, 10, nullptr);
  SlotLease a = *pool.Acquire({});
  SlotLease b = std::move(a);
  CHECK(a.index() == -1);
  CHECK(a.bytes().empty());
  CHECK(b.index() == 0);
  a.Release();  // nothing to return
  CHECK(pool.available() == 0);
  b.Release();
  b.Release();
  CHECK(pool.available() == 1);
  SlotLease c = *pool.Acquire({});
  c = SlotLease();  // move-assigning returns the slot held before
  CHECK(pool.available() == 1);
}

TEST_CASE("Acquire waits while every slot is leased and resumes when one is released") {
  SlotPool pool(1, 64, nullptr);
  std::optional<SlotLease> held = pool.Acquire({});
  std::stop_source stop;
  auto waiter = std::async(std::launch::async, [&] { return pool.Acquire(stop.get_token()); });
  CHECK(waiter.wait_for(50ms) == std::future_status::timeout);
  held.reset();
  REQUIRE(waiter.wait_for(5s) == std::future_status::ready);
  std::optional<SlotLease> got = waiter.get();
  REQUIRE(got);
  CHECK(got->index() == 0);
}

TEST_CASE("a stop request wakes a waiting Acquire, which returns without a slot") {
  SlotPool pool(1, 64, nullptr);
  SlotLease held = *pool.Acquire({});
  std::stop_source stop;
  auto waiter = std::async(std::launch::async, [&] { return pool.Acquire(stop.get_token()); });
  CHECK(waiter.wait_for(50ms) == std::future_status::timeout);
  stop.request_stop();
  REQUIRE(waiter.wait_for(5s) == std::future_status::ready);
  CHECK_FALSE(waiter.get());
  CHECK(pool.available() == 0);  // the held slot is still held, none was taken
}

TEST_CASE("a stopped token gets no slot even when one is free") {
  SlotPool pool(2, 64, nullptr);
  std::stop_source stop;
  stop.request_stop();
  CHECK_FALSE(pool.Acquire(stop.get_token()));
  CHECK(pool.available() == 2);
}

TEST_CASE("leases keep the memory alive after the pool object is gone") {
  auto allocator = std::make_shared<CountingAllocator>();
  std::optional<SlotLease> lease;
  {
    SlotPool pool(2, 4096, allocator);
    CHECK(allocator->allocations == 1);
    CHECK(allocator->allocated_bytes == 2 * 4096);
    lease = pool.Acquire({});
  }
  CHECK(allocator->deallocations == 0);
  std::memset(lease->bytes().data(), 7, lease->bytes().size());  // still writable
  lease.reset();
  CHECK(allocator->deallocations == 1);
}

TEST_CASE("a pool refuses zero slots or zero bytes") {
  CHECK_THROWS_AS(SlotPool(0, 10, nullptr), Error);
  CHECK_THROWS_AS(SlotPool(2, 0, nullptr), Error);
}

TEST_CASE("threads contending for slots never share one") {
  constexpr int kSlots = 3;
  constexpr int kThreads = 6;
  constexpr int kRounds = 2000;
  SlotPool pool(kSlots, 64, nullptr);
  std::atomic<int> owners[kSlots] = {};
  std::atomic<int> violations{0};
  std::stop_source stop;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        std::optional<SlotLease> lease = pool.Acquire(stop.get_token());
        if (!lease) {
          ++violations;
          return;
        }
        if (owners[lease->index()].fetch_add(1) != 0) ++violations;
        lease->bytes()[0] = static_cast<uint8_t>(t);
        if (lease->bytes()[0] != t) ++violations;
        owners[lease->index()].fetch_sub(1);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(violations == 0);
  CHECK(pool.available() == kSlots);
}

}  // namespace
}  // namespace h5feed::memory
