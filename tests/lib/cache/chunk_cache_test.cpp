#include "cache/chunk_cache.h"

#include <doctest/doctest.h>
#include <tbb/parallel_for.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <latch>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cache/access_plan.h"
#include "h5feed/error.h"
#include "sampler/epoch_order.h"
#include "support/caught_error.h"

// Every allocation of this test binary is counted while g_counting is set, so a test can show
// that the cache in steady state allocates nothing.
namespace {
std::atomic<bool> g_counting{false};
std::atomic<int64_t> g_allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  if (g_counting.load(std::memory_order_relaxed)) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
  }
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
// GCC, seeing free() inside operator delete, takes the pair for a mismatch; a replacement
// operator new that mallocs is exactly what the standard allows.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace h5feed::cache {
namespace {

constexpr int64_t kChunkBytes = 256;

uint8_t Pattern(int64_t chunk, size_t i) {
  return static_cast<uint8_t>(static_cast<uint64_t>(chunk) * 131 + i * 7 + (i >> 8));
}

bool Holds(std::span<const uint8_t> data, int64_t chunk) {
  if (data.size() != static_cast<size_t>(kChunkBytes)) return false;
  for (size_t i = 0; i < data.size(); ++i) {
    if (data[i] != Pattern(chunk, i)) return false;
  }
  return true;
}

// Chunks 0..chunk_count-1 filled with Pattern; counts load attempts per chunk. `hook` (set
// before the cache is used concurrently) runs at the start of every load and may block or
// throw.
class FakeSource {
 public:
  explicit FakeSource(int64_t chunk_count) : attempts_(static_cast<size_t>(chunk_count)) {}

  ChunkCache::LoadFunction Function() {
    return [this](int64_t chunk, ChunkCache::LoadTarget& target) {
      return Load(chunk, target.Buffer());
    };
  }
  int64_t attempts(int64_t chunk) const { return attempts_[static_cast<size_t>(chunk)].load(); }
  int64_t total_attempts() const {
    int64_t total = 0;
    for (const auto& a : attempts_) total += a.load();
    return total;
  }

  std::function<void(int64_t chunk)> hook;

 private:
  LoadResult Load(int64_t chunk, std::span<uint8_t> dest) {
    attempts_[static_cast<size_t>(chunk)].fetch_add(1);
    if (hook) hook(chunk);
    for (size_t i = 0; i < dest.size(); ++i) dest[i] = Pattern(chunk, i);
    return {.bytes_read = 100, .bytes_decoded = dest.size()};
  }

  std::vector<std::atomic<int64_t>> attempts_;
};

// A plan where step s reads exactly chunk sequence[s].
std::shared_ptr<const AccessPlan> PlanOf(const std::vector<int64_t>& sequence, int64_t chunks) {
  return std::make_shared<const AccessPlan>(sequence, 1, ChunkRows((1) * (chunks), 1));
}

// Reads `sequence` one chunk per step, checking every chunk's bytes.
void ReadSequence(ChunkCache& cache, const std::vector<int64_t>& sequence) {
  for (size_t s = 0; s < sequence.size(); ++s) {
    ChunkCache::Ref ref = cache.Get(sequence[s], static_cast<int64_t>(s));
    REQUIRE(Holds(ref.data(), sequence[s]));
  }
}

// Loads of an offline cache of `capacity` chunks over `sequence`: Belady (evict the chunk
// used farthest ahead) or LRU, written independently of ChunkCache.
int64_t ReferenceLoads(const std::vector<int64_t>& sequence, size_t capacity, bool belady) {
  std::vector<int64_t> held;
  std::vector<size_t> last_use;
  int64_t loads = 0;
  for (size_t i = 0; i < sequence.size(); ++i) {
    const auto it = std::find(held.begin(), held.end(), sequence[i]);
    if (it != held.end()) {
      last_use[static_cast<size_t>(it - held.begin())] = i;
      continue;
    }
    ++loads;
    if (held.size() == capacity) {
      size_t victim = 0;
      size_t best = 0;
      for (size_t j = 0; j < held.size(); ++j) {
        size_t key = last_use[j];
        if (belady) {
          key = sequence.size();
          for (size_t k = i + 1; k < sequence.size(); ++k) {
            if (sequence[k] == held[j]) {
              key = k;
              break;
            }
          }
          if (key > best || j == 0) victim = j, best = key;
        } else if (key < best || j == 0) {
          victim = j, best = key;
        }
      }
      held.erase(held.begin() + static_cast<ptrdiff_t>(victim));
      last_use.erase(last_use.begin() + static_cast<ptrdiff_t>(victim));
    }
    held.push_back(sequence[i]);
    last_use.push_back(i);
  }
  return loads;
}

std::vector<int64_t> RandomSequence(size_t length, int64_t chunks, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> pick(0, chunks - 1);
  std::vector<int64_t> sequence(length);
  for (auto& c : sequence) c = pick(rng);
  return sequence;
}

void CheckStatsAddUp(const CacheStats& s, uint64_t gets, const ChunkCache& cache) {
  CHECK(s.hits + s.misses == gets);
  CHECK(s.loads == s.misses + s.prefetches);
  CHECK(s.loads - s.failed_loads - s.evictions ==
        static_cast<uint64_t>(cache.resident_bytes() / kChunkBytes));
  CHECK(s.bytes_read == 100 * (s.loads - s.failed_loads));
  CHECK(s.bytes_decoded == kChunkBytes * (s.loads - s.failed_loads));
}

TEST_CASE("a chunk read twice is loaded once") {
  FakeSource source(8);
  ChunkCache cache(kChunkBytes, 4 * kChunkBytes, EvictionPolicy::kBelady, source.Function());
  CHECK(Holds(cache.Get(3, 0).data(), 3));
  CHECK(Holds(cache.Get(3, 1).data(), 3));
  CHECK(source.attempts(3) == 1);
  const CacheStats s = cache.stats();
  CHECK(s.misses == 1);
  CHECK(s.hits == 1);
  CHECK(s.loads == 1);
  CheckStatsAddUp(s, 2, cache);
}

TEST_CASE("a Ref pins its chunk until it is reset or destroyed, and moving it moves the pin") {
  FakeSource source(8);
  ChunkCache cache(kChunkBytes, 1 * kChunkBytes, EvictionPolicy::kLru, source.Function());
  ChunkCache::Ref a = cache.Get(0, 0);
  ChunkCache::Ref b = std::move(a);
  CHECK_FALSE(a);
  CHECK(a.data().empty());
  REQUIRE(b);
  // The budget holds one chunk and chunk 0 is pinned: chunk 1 goes over, then leaves at unpin.
  CHECK(Holds(cache.Get(1, 1).data(), 1));
  CHECK(cache.resident_bytes() == kChunkBytes);
  CHECK(cache.stats().peak_resident_bytes == 2 * kChunkBytes);
  CHECK(Holds(cache.Get(0, 2).data(), 0));
  CHECK(source.attempts(0) == 1);
  ChunkCache::Ref c;
  c = std::move(b);
  CHECK(Holds(c.data(), 0));
  c.Reset();
  CHECK_FALSE(c);
  CHECK(Holds(cache.Get(2, 3).data(), 2));  // chunk 0, now unpinned, makes room
  CHECK(Holds(cache.Get(0, 4).data(), 0));
  CHECK(source.attempts(0) == 2);
}

TEST_CASE("two threads needing the same absent chunk load it once") {
  FakeSource source(8);
  std::latch load_started(1);
  std::latch release(1);
  std::atomic<bool> first{true};
  source.hook = [&](int64_t) {
    if (first.exchange(false)) {
      load_started.count_down();
      release.wait();
    }
  };
  ChunkCache cache(kChunkBytes, 4 * kChunkBytes, EvictionPolicy::kBelady, source.Function());
  std::atomic<int> correct{0};
  auto reader = [&] {
    ChunkCache::Ref ref = cache.Get(7, 0);
    if (Holds(ref.data(), 7)) correct.fetch_add(1);
  };
  std::thread loader(reader);
  load_started.wait();
  std::thread waiter(reader);
  // The waiter counts its hit under the lock just before it waits; the load cannot end before
  // `release`, so from here on both threads are inside Get for the same load.
  while (cache.stats().hits < 1) std::this_thread::yield();
  release.count_down();
  loader.join();
  waiter.join();
  CHECK(correct.load() == 2);
  CHECK(source.attempts(7) == 1);
  const CacheStats s = cache.stats();
  CHECK(s.misses == 1);
  CHECK(s.hits == 1);
  CheckStatsAddUp(s, 2, cache);
}

TEST_CASE("a Get of a chunk being prefetched waits for that load and counts as a hit") {
  FakeSource source(8);
  std::latch load_started(1);
  std::latch release(1);
  source.hook = [&](int64_t chunk) {
    if (chunk == 2) {
      load_started.count_down();
      release.wait();
    }
  };
  ChunkCache cache(kChunkBytes, 4 * kChunkBytes, EvictionPolicy::kBelady, source.Function());
  bool prefetched = false;
  std::thread prefetcher([&] { prefetched = cache.Prefetch(2, 5); });
  load_started.wait();
  std::thread getter([&] { CHECK(Holds(cache.Get(2, 0).data(), 2)); });
  while (cache.stats().hits < 1) std::this_thread::yield();
  release.count_down();
  prefetcher.join();
  getter.join();
  CHECK(prefetched);
  CHECK(source.attempts(2) == 1);
  const CacheStats s = cache.stats();
  CHECK(s.prefetches == 1);
  CHECK(s.misses == 0);
  CheckStatsAddUp(s, 1, cache);
}

TEST_CASE("GetUnlessLoading returns at once, counting nothing, while another task loads") {
  FakeSource source(8);
  std::latch load_started(1);
  std::latch release(1);
  source.hook = [&](int64_t chunk) {
    if (chunk == 3) {
      load_started.count_down();
      release.wait();
    }
  };
  ChunkCache cache(kChunkBytes, 4 * kChunkBytes, EvictionPolicy::kBelady, source.Function());
  std::thread loader([&] { CHECK(Holds(cache.Get(3, 0).data(), 3)); });
  load_started.wait();
  CHECK_FALSE(cache.GetUnlessLoading(3, 0).has_value());  // chunk 3 is loading elsewhere
  {
    std::optional<ChunkCache::Ref> absent = cache.GetUnlessLoading(5, 0);  // loads it here
    REQUIRE(absent.has_value());
    CHECK(Holds(absent->data(), 5));
  }
  CacheStats s = cache.stats();
  CHECK(s.misses == 2);  // 3 (the loader's) and 5; the refused call counted nothing
  CHECK(s.hits == 0);
  release.count_down();
  loader.join();
  std::optional<ChunkCache::Ref> ready = cache.GetUnlessLoading(3, 1);
  REQUIRE(ready.has_value());
  CHECK(Holds(ready->data(), 3));
  ready.reset();
  s = cache.stats();
  CHECK(s.hits == 1);
  CHECK(source.attempts(3) == 1);
  CheckStatsAddUp(s, 3, cache);
}

TEST_CASE("resident bytes never exceed the budget when nothing is pinned") {
  const std::vector<int64_t> sequence = RandomSequence(2000, 20, 7);
  for (const EvictionPolicy policy : {EvictionPolicy::kBelady, EvictionPolicy::kLru}) {
    for (const int64_t budget :
         {int64_t{0}, kChunkBytes / 2, 5 * kChunkBytes + kChunkBytes / 2, 8 * kChunkBytes}) {
      CAPTURE(budget);
      FakeSource source(20);
      ChunkCache cache(kChunkBytes, budget, policy, source.Function());
      cache.SetPlan(PlanOf(sequence, 20));
      for (size_t s = 0; s < sequence.size(); ++s) {
        {
          ChunkCache::Ref ref = cache.Get(sequence[s], static_cast<int64_t>(s));
          REQUIRE(Holds(ref.data(), sequence[s]));
        }
        REQUIRE(cache.resident_bytes() <= budget);
      }
      // The one pinned entry of each Get is the only excess, and only below a chunk's budget.
      CHECK(cache.stats().peak_resident_bytes <=
            static_cast<uint64_t>(std::max(budget, kChunkBytes)));
      CheckStatsAddUp(cache.stats(), sequence.size(), cache);
    }
  }
}

TEST_CASE("pinned entries are never evicted, and only they take the cache over budget") {
  FakeSource source(16);
  ChunkCache cache(kChunkBytes, 3 * kChunkBytes, EvictionPolicy::kBelady, source.Function());
  // Chunks 0-4 are needed again at the end, 5-9 never again: Belady would evict 0-4 first.
  std::vector<int64_t> sequence = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4};
  cache.SetPlan(PlanOf(sequence, 16));
  std::vector<ChunkCache::Ref> pinned;
  for (int64_t c = 0; c < 5; ++c) pinned.push_back(cache.Get(c, c));
  CHECK(cache.resident_bytes() == 5 * kChunkBytes);  // over budget by the pinned entries only
  for (int64_t c = 5; c < 10; ++c) {
    CHECK(Holds(cache.Get(c, c).data(), c));
    CHECK(cache.resident_bytes() == 5 * kChunkBytes);  // the unpinned one left at unpin
  }
  CHECK(cache.stats().peak_resident_bytes == 6 * kChunkBytes);  // 5 pinned + 1 loading
  for (int64_t c = 0; c < 5; ++c) {
    CHECK(Holds(pinned[static_cast<size_t>(c)].data(), c));
    CHECK(Holds(cache.Get(c, 10 + c).data(), c));
    CHECK(source.attempts(c) == 1);
  }
  pinned.clear();
  CHECK(cache.resident_bytes() <= 3 * kChunkBytes);
  CheckStatsAddUp(cache.stats(), 15, cache);
}

TEST_CASE("Belady evicts the chunk needed farthest ahead where LRU evicts the least recent") {
  // Budget 2. At step 2 chunk 2 needs room: LRU evicts chunk 0 (least recent), which step 3
  // needs again; Belady evicts chunk 1, never needed again.
  const std::vector<int64_t> sequence = {0, 1, 2, 0};
  FakeSource belady_source(3);
  ChunkCache belady(kChunkBytes, 2 * kChunkBytes, EvictionPolicy::kBelady,
                    belady_source.Function());
  belady.SetPlan(PlanOf(sequence, 3));
  ReadSequence(belady, sequence);
  CHECK(belady_source.attempts(0) == 1);
  CHECK(belady.stats().loads == 3);

  FakeSource lru_source(3);
  ChunkCache lru(kChunkBytes, 2 * kChunkBytes, EvictionPolicy::kLru, lru_source.Function());
  lru.SetPlan(PlanOf(sequence, 3));
  ReadSequence(lru, sequence);
  CHECK(lru_source.attempts(0) == 2);
  CHECK(lru.stats().loads == 4);
}

TEST_CASE("Belady without a plan evicts the least recently used chunk") {
  FakeSource source(3);
  ChunkCache cache(kChunkBytes, 2 * kChunkBytes, EvictionPolicy::kBelady, source.Function());
  ReadSequence(cache, {0, 1, 0, 2, 0, 1});  // 2 evicts 1 (0 was used since); 1 evicts 2
  CHECK(source.attempts(0) == 1);
  CHECK(source.attempts(1) == 2);
  CHECK(cache.stats().loads == 4);
}

TEST_CASE("over random sequences the cache loads exactly as often as reference Belady and LRU") {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const int64_t chunks = 4 + static_cast<int64_t>(seed) * 3;
    const std::vector<int64_t> sequence = RandomSequence(600, chunks, seed);
    for (const size_t capacity : {size_t{1}, size_t{3}, size_t{6}}) {
      CAPTURE(seed);
      CAPTURE(capacity);
      for (const bool belady : {true, false}) {
        FakeSource source(chunks);
        ChunkCache cache(kChunkBytes, static_cast<int64_t>(capacity) * kChunkBytes,
                         belady ? EvictionPolicy::kBelady : EvictionPolicy::kLru,
                         source.Function());
        cache.SetPlan(PlanOf(sequence, chunks));
        ReadSequence(cache, sequence);
        CHECK(static_cast<int64_t>(cache.stats().loads) ==
              ReferenceLoads(sequence, capacity, belady));
      }
    }
  }
}

TEST_CASE("Belady over a chunks:W order with a budget of W chunks loads every chunk once") {
  // 40 chunks of 64 rows, W = 4, batches of 32: a window (256 rows) is 8 whole batches.
  const sampler::SampleGeometry geometry{40 * 64, 64};
  const int64_t batch = 32;
  const std::vector<int64_t> order = sampler::EpochOrder(
      geometry, SamplerOptions{SamplerOptions::Kind::kChunks, 4}, ShardOptions{}, 11, 2);
  FakeSource source(40);
  ChunkCache cache(kChunkBytes, 4 * kChunkBytes, EvictionPolicy::kBelady, source.Function());
  cache.SetPlan(std::make_shared<const AccessPlan>(
      order, batch, ChunkRows((geometry.max_rows()) * (40), geometry.max_rows())));
  for (size_t i = 0; i < order.size(); ++i) {
    const int64_t chunk = order[i] / geometry.max_rows();
    REQUIRE(Holds(cache.Get(chunk, static_cast<int64_t>(i) / batch).data(), chunk));
  }
  CHECK(cache.stats().loads == 40);
  for (int64_t c = 0; c < 40; ++c) CHECK(source.attempts(c) == 1);
}

TEST_CASE("LRU reloads a cyclic sequence one chunk longer than the budget where Belady does not") {
  std::vector<int64_t> sequence;
  for (int round = 0; round < 10; ++round) {
    for (int64_t c = 0; c < 5; ++c) sequence.push_back(c);
  }
  auto loads = [&](EvictionPolicy policy) {
    FakeSource source(5);
    ChunkCache cache(kChunkBytes, 4 * kChunkBytes, policy, source.Function());
    cache.SetPlan(PlanOf(sequence, 5));
    ReadSequence(cache, sequence);
    return cache.stats().loads;
  };
  CHECK(loads(EvictionPolicy::kLru) == sequence.size());  // every access misses
  // Belady misses about once per 4 accesses after the first 5 loads.
  const uint64_t belady = loads(EvictionPolicy::kBelady);
  CHECK(belady == static_cast<uint64_t>(ReferenceLoads(sequence, 4, true)));
  CHECK(belady <= 5 + 45 / 4 + 1);
}

TEST_CASE("a failing load reaches its caller and every waiter, and a later Get retries") {
  FakeSource source(8);
  std::latch load_started(1);
  std::latch release(1);
  std::atomic<bool> first{true};
  source.hook = [&](int64_t chunk) {
    if (chunk == 5 && first.exchange(false)) {
      load_started.count_down();
      release.wait();
      throw Error(ErrorCode::kCorrupt, "chunk 5 of test.h5:/images is corrupt");
    }
  };
  ChunkCache cache(kChunkBytes, 4 * kChunkBytes, EvictionPolicy::kBelady, source.Function());
  std::vector<std::string> messages(3);
  std::vector<ErrorCode> codes(3, ErrorCode::kInternal);
  auto reader = [&](size_t i) {
    try {
      cache.Get(5, 0);
      messages[i] = "no error";
    } catch (const Error& e) {
      messages[i] = e.what();
      codes[i] = e.code();
    }
  };
  std::thread loader(reader, 0);
  load_started.wait();
  std::thread waiter1(reader, 1);
  std::thread waiter2(reader, 2);
  while (cache.stats().hits < 2) std::this_thread::yield();
  release.count_down();
  loader.join();
  waiter1.join();
  waiter2.join();
  for (const std::string& m : messages) CHECK(m == "chunk 5 of test.h5:/images is corrupt");
  for (const ErrorCode code : codes) CHECK(code == ErrorCode::kCorrupt);
  CHECK(cache.resident_bytes() == 0);  // the failed entry left with its last waiter
  CHECK(cache.stats().failed_loads == 1);

  CHECK(Holds(cache.Get(5, 1).data(), 5));
  CHECK(source.attempts(5) == 2);
  const CacheStats s = cache.stats();
  CHECK(s.misses == 2);
  CHECK(s.hits == 2);
  CheckStatsAddUp(s, 4, cache);
}

TEST_CASE("a load that throws something other than an h5feed::Error rethrows it unchanged") {
  FakeSource source(4);
  std::atomic<bool> first{true};
  source.hook = [&](int64_t) {
    if (first.exchange(false)) throw std::bad_alloc();
  };
  ChunkCache cache(kChunkBytes, 2 * kChunkBytes, EvictionPolicy::kLru, source.Function());
  CHECK_THROWS_AS(cache.Get(1, 0), std::bad_alloc);
  CHECK(cache.resident_bytes() == 0);
  CHECK(Holds(cache.Get(1, 1).data(), 1));
  CHECK(cache.stats().failed_loads == 1);
  CheckStatsAddUp(cache.stats(), 2, cache);
}

TEST_CASE("Prefetch loads into free budget, and without a plan only there") {
  FakeSource source(8);
  ChunkCache cache(kChunkBytes, 3 * kChunkBytes, EvictionPolicy::kBelady, source.Function());
  CHECK(cache.Prefetch(0, 0));
  CHECK_FALSE(cache.Prefetch(0, 0));  // present
  CHECK(cache.Prefetch(1, 1));
  CHECK(cache.Prefetch(2, 2));
  CHECK_FALSE(cache.Prefetch(3, 3));  // full, and no plan to say what may go
  CHECK(source.total_attempts() == 3);
  for (int64_t c = 0; c < 3; ++c) CHECK(Holds(cache.Get(c, c).data(), c));
  const CacheStats s = cache.stats();
  CHECK(s.hits == 3);
  CHECK(s.prefetches == 3);
  CheckStatsAddUp(s, 3, cache);
}

TEST_CASE("Prefetch refuses to evict a chunk needed sooner than the chunk it would load") {
  const std::vector<int64_t> sequence = {0, 1, 0, 1, 2, 3, 0};
  for (const EvictionPolicy policy : {EvictionPolicy::kBelady, EvictionPolicy::kLru}) {
    FakeSource source(4);
    ChunkCache cache(kChunkBytes, 2 * kChunkBytes, policy, source.Function());
    cache.SetPlan(PlanOf(sequence, 4));
    cache.Get(0, 0);
    cache.Get(1, 1);
    // At step 1, chunk 0 is next needed at step 2 and chunk 1 at step 3: both before 4 and 5.
    CHECK_FALSE(cache.Prefetch(2, 4));
    CHECK_FALSE(cache.Prefetch(3, 5));
    CHECK(source.total_attempts() == 2);
    cache.Get(0, 2);
    cache.Get(1, 3);
    // At step 3, chunk 1 is never needed again: it makes room for chunk 2.
    CHECK(cache.Prefetch(2, 4));
    CHECK(Holds(cache.Get(2, 4).data(), 2));
    // At step 4, chunk 0 is next needed at step 6, after chunk 3's step 5.
    CHECK(cache.Prefetch(3, 5));
    CHECK(Holds(cache.Get(3, 5).data(), 3));
    CHECK(Holds(cache.Get(0, 6).data(), 0));
    const CacheStats s = cache.stats();
    CHECK(s.prefetches == 2);
    CHECK(s.misses == 3);  // 0, 1, and 0 again at step 6
    CHECK(source.attempts(1) == 1);
    CheckStatsAddUp(s, 7, cache);
  }
}

TEST_CASE("stats add up over a mixed single-threaded workload") {
  const std::vector<int64_t> sequence = RandomSequence(3000, 24, 99);
  std::mt19937_64 rng(5);
  FakeSource source(24);
  ChunkCache cache(kChunkBytes, 6 * kChunkBytes, EvictionPolicy::kBelady, source.Function());
  cache.SetPlan(PlanOf(sequence, 24));
  uint64_t prefetched = 0;
  for (size_t s = 0; s < sequence.size(); ++s) {
    if (rng() % 3 == 0 && s + 2 < sequence.size()) {
      prefetched += cache.Prefetch(sequence[s + 2], static_cast<int64_t>(s + 2)) ? 1 : 0;
    }
    REQUIRE(Holds(cache.Get(sequence[s], static_cast<int64_t>(s)).data(), sequence[s]));
  }
  const CacheStats s = cache.stats();
  CHECK(prefetched > 0);
  CHECK(s.prefetches == prefetched);
  CHECK(s.loads == static_cast<uint64_t>(source.total_attempts()));
  CheckStatsAddUp(s, sequence.size(), cache);
}

// Eight threads walk a shared plan at slightly different paces, reading random chunks of their
// step, sometimes holding two pins, sometimes prefetching ahead, with loads that may fail.
void Stress(EvictionPolicy policy, bool failures) {
  constexpr int kThreads = 8;
  constexpr int64_t kChunks = 24;
  constexpr int64_t kSteps = 3000;
  std::vector<int64_t> order(static_cast<size_t>(kSteps * 8));
  std::mt19937_64 order_rng(17);
  for (auto& row : order) row = static_cast<int64_t>(order_rng() % kChunks);
  auto plan = std::make_shared<const AccessPlan>(order, 8, ChunkRows((1) * (kChunks), 1));

  FakeSource source(kChunks);
  std::atomic<uint64_t> failed{0};
  source.hook = [&](int64_t chunk) {
    thread_local std::mt19937_64 rng(std::hash<std::thread::id>()(std::this_thread::get_id()));
    std::this_thread::yield();  // a load takes a while: let other threads pile up on it
    if (failures) {
      if (rng() % 20 == 0) {
        failed.fetch_add(1);
        throw Error(ErrorCode::kIo, "injected failure of chunk " + std::to_string(chunk));
      }
    }
  };
  const int64_t budget = 6 * kChunkBytes;
  ChunkCache cache(kChunkBytes, budget, policy, source.Function());
  cache.SetPlan(plan);

  std::atomic<uint64_t> gets{0}, prefetched{0}, prefetch_errors{0}, wrong{0}, errors{0};
  auto expected_error = [&](const Error& e) {
    if (!failures || e.code() != ErrorCode::kIo) wrong.fetch_add(1);
    errors.fetch_add(1);
  };
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(static_cast<uint64_t>(t) + 1000);
      start.arrive_and_wait();
      ChunkCache::Ref held;
      int64_t held_chunk = -1;
      for (int64_t step = 0; step < kSteps; step += 1 + static_cast<int64_t>(rng() % 2)) {
        if (rng() % 4 == 0) {
          const std::span<const int64_t> ahead = plan->chunks_of(step + 2);
          try {
            if (!ahead.empty() && cache.Prefetch(ahead[0], step + 2)) prefetched.fetch_add(1);
          } catch (const Error& e) {
            prefetch_errors.fetch_add(1);
            expected_error(e);
          }
        }
        const std::span<const int64_t> chunks = plan->chunks_of(step);
        const int64_t chunk = chunks[rng() % chunks.size()];
        try {
          gets.fetch_add(1);
          ChunkCache::Ref ref = cache.Get(chunk, step);
          if (!Holds(ref.data(), chunk)) wrong.fetch_add(1);
          if (rng() % 3 == 0) {  // keep this pin for a while: two pins per thread at times
            held = std::move(ref);
            held_chunk = chunk;
          }
        } catch (const Error& e) {
          expected_error(e);
        }
        if (held && !Holds(held.data(), held_chunk)) wrong.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(wrong.load() == 0);
  const CacheStats s = cache.stats();
  CHECK(s.failed_loads == failed.load());
  CHECK(s.prefetches == prefetched.load() + prefetch_errors.load());
  CHECK(s.loads == static_cast<uint64_t>(source.total_attempts()));
  CHECK(cache.resident_bytes() <= budget);
  // At most two pins and one load per thread at once.
  CHECK(s.peak_resident_bytes <=
        static_cast<uint64_t>(std::max(budget, 2 * kThreads * kChunkBytes)));
  CheckStatsAddUp(s, gets.load(), cache);
  if (!failures) CHECK(errors.load() == 0);
  MESSAGE(std::string(policy == EvictionPolicy::kBelady ? "belady" : "lru"), ": ", s.loads,
          " loads, ", s.hits, " hits, ", s.failed_loads, " failed, peak ",
          s.peak_resident_bytes / kChunkBytes, " chunks");
}

TEST_CASE("eight threads reading random chunks under a small budget always see correct data") {
  Stress(EvictionPolicy::kBelady, false);
  Stress(EvictionPolicy::kLru, false);
}

TEST_CASE("eight threads keep correct data and a consistent cache while loads fail at random") {
  Stress(EvictionPolicy::kBelady, true);
  Stress(EvictionPolicy::kLru, true);
}

// Debian's libtbb is not built with ThreadSanitizer, which therefore cannot see TBB's own
// synchronization and reports races inside TBB's task objects. Under TSan the cache is covered by
// the std::thread tests above.
#if defined(__SANITIZE_THREAD__)
constexpr bool kUninstrumentedTbb = true;
#else
constexpr bool kUninstrumentedTbb = false;
#endif

TEST_CASE("TBB tasks gathering a chunks:W order with prefetch ahead load every chunk once" *
          doctest::skip(kUninstrumentedTbb)) {
  const sampler::SampleGeometry geometry{48 * 64, 64};
  const int64_t batch = 64;
  const std::vector<int64_t> order = sampler::EpochOrder(
      geometry, SamplerOptions{SamplerOptions::Kind::kChunks, 4}, ShardOptions{}, 3, 0);
  auto plan = std::make_shared<const AccessPlan>(
      order, batch, ChunkRows((geometry.max_rows()) * (48), geometry.max_rows()));
  FakeSource source(48);
  ChunkCache cache(kChunkBytes, 4 * kChunkBytes, EvictionPolicy::kBelady, source.Function());
  cache.SetPlan(plan);
  std::atomic<int64_t> wrong{0};
  for (int64_t step = 0; step < plan->steps(); ++step) {
    tbb::task_group prefetch;
    prefetch.run([&] {
      for (int64_t c : plan->chunks_of(step + 1)) cache.Prefetch(c, step + 1);
    });
    tbb::parallel_for(step * batch, (step + 1) * batch, [&](int64_t i) {
      const int64_t chunk = order[static_cast<size_t>(i)] / geometry.max_rows();
      if (!Holds(cache.Get(chunk, step).data(), chunk)) wrong.fetch_add(1);
    });
    prefetch.wait();
  }
  CHECK(wrong.load() == 0);
  CHECK(cache.stats().loads == 48);
  for (int64_t c = 0; c < 48; ++c) CHECK(source.attempts(c) == 1);
}

TEST_CASE("a cache in steady state allocates nothing") {
  const std::vector<int64_t> sequence = RandomSequence(4000, 16, 23);
  for (const EvictionPolicy policy : {EvictionPolicy::kBelady, EvictionPolicy::kLru}) {
    FakeSource source(16);
    ChunkCache cache(kChunkBytes, 5 * kChunkBytes, policy, source.Function());
    cache.SetPlan(PlanOf(sequence, 16));
    auto read = [&](size_t from, size_t to) {
      for (size_t s = from; s < to; ++s) {
        if (s % 3 == 0 && s + 1 < to) cache.Prefetch(sequence[s + 1], static_cast<int64_t>(s + 1));
        ChunkCache::Ref ref = cache.Get(sequence[s], static_cast<int64_t>(s));
        if (!Holds(ref.data(), sequence[s])) throw std::logic_error("wrong data");
      }
    };
    read(0, 2000);  // warm up: every buffer, entry and index node is made
    const uint64_t misses_before = cache.stats().misses;
    g_allocations = 0;
    g_counting = true;
    read(2000, 4000);
    g_counting = false;
    CHECK(g_allocations.load() == 0);
    CHECK(cache.stats().misses > misses_before + 100);  // it really loaded and evicted
  }
}

// Loads that hand the cache bytes they hold (as a mapped file's chunks do): each chunk is a
// vector of its own, whose lifetime the test watches.
struct AdoptingSource {
  std::vector<std::weak_ptr<const std::vector<uint8_t>>> owners;

  explicit AdoptingSource(int64_t chunk_count) : owners(static_cast<size_t>(chunk_count)) {}

  ChunkCache::LoadFunction Function() {
    return [this](int64_t chunk, ChunkCache::LoadTarget& target) {
      auto bytes = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(kChunkBytes));
      for (size_t i = 0; i < bytes->size(); ++i) (*bytes)[i] = Pattern(chunk, i);
      owners[static_cast<size_t>(chunk)] = bytes;
      target.Adopt(*bytes, bytes);
      return LoadResult{.bytes_read = kChunkBytes, .bytes_decoded = kChunkBytes};
    };
  }
  bool Alive(int64_t chunk) const { return !owners[static_cast<size_t>(chunk)].expired(); }
};

TEST_CASE("adopted chunks are served in place and let go when evicted") {
  AdoptingSource source(4);
  const std::vector<int64_t> sequence = {0, 1, 2, 0, 3, 1};
  {
    ChunkCache cache(kChunkBytes, 2 * kChunkBytes, EvictionPolicy::kBelady, source.Function());
    cache.SetPlan(PlanOf(sequence, 4));
    {
      ChunkCache::Ref zero = cache.Get(0, 0);
      REQUIRE(Holds(zero.data(), 0));
      CHECK(zero.data().data() == source.owners[0].lock()->data());  // no copy
    }
    ReadSequence(cache, {0, 1});
    ChunkCache::Ref two = cache.Get(2, 2);  // evicts 1 (next used at step 5, after 0's step 3)
    CHECK(Holds(two.data(), 2));
    CHECK_FALSE(source.Alive(1));
    CHECK(source.Alive(0));
    CHECK(cache.resident_bytes() == 2 * kChunkBytes);
  }
  for (int64_t chunk = 0; chunk < 4; ++chunk) CHECK_FALSE(source.Alive(chunk));
}

// Loads that fill the cache's buffer and attach a companion of `companion_bytes` (the rows of
// fields read with the chunk), each a vector of its own whose lifetime the test watches, its
// bytes Pattern(chunk + 1000, i).
struct CompanionSource {
  FakeSource chunks;
  std::vector<std::weak_ptr<const std::vector<uint8_t>>> companions;
  int64_t companion_bytes;

  CompanionSource(int64_t chunk_count, int64_t bytes)
      : chunks(chunk_count), companions(static_cast<size_t>(chunk_count)), companion_bytes(bytes) {}

  ChunkCache::LoadFunction Function() {
    return [this, load = chunks.Function()](int64_t chunk, ChunkCache::LoadTarget& target) {
      const LoadResult result = load(chunk, target);
      auto bytes = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(companion_bytes));
      for (size_t i = 0; i < bytes->size(); ++i) (*bytes)[i] = Pattern(chunk + 1000, i);
      companions[static_cast<size_t>(chunk)] = bytes;
      target.Attach(*bytes, bytes);
      return result;
    };
  }
  bool Alive(int64_t chunk) const { return !companions[static_cast<size_t>(chunk)].expired(); }
};

TEST_CASE("a chunk's companion is kept with it, counted in the budget and let go with it") {
  constexpr int64_t kCompanionBytes = 3 * kChunkBytes;
  CompanionSource source(4, kCompanionBytes);
  const std::vector<int64_t> sequence = {0, 1, 2, 0, 3, 1};
  {
    // Two entries of a chunk and its companion: the budget of 8 chunks alone holds two.
    ChunkCache cache(kChunkBytes, 2 * (kChunkBytes + kCompanionBytes), EvictionPolicy::kBelady,
                     source.Function(), kCompanionBytes);
    CHECK(cache.companion_bytes() == kCompanionBytes);
    cache.SetPlan(PlanOf(sequence, 4));
    for (size_t s = 0; s < sequence.size(); ++s) {
      const int64_t chunk = sequence[s];
      ChunkCache::Ref ref = cache.Get(chunk, static_cast<int64_t>(s));
      REQUIRE(Holds(ref.data(), chunk));
      REQUIRE(ref.companion().size() == static_cast<size_t>(kCompanionBytes));
      CHECK(ref.companion().data() == source.companions[static_cast<size_t>(chunk)].lock()->data());
      CHECK(ref.companion()[5] == Pattern(chunk + 1000, 5));
      CHECK(cache.resident_bytes() <= 2 * (kChunkBytes + kCompanionBytes));
      if (s == 2) {
        CHECK_FALSE(source.Alive(1));  // evicted with chunk 1 (next used at step 5)
        CHECK(source.Alive(0));
      }
    }
    CHECK(cache.stats().loads == 5);  // Belady with room for two: 0 1 2 (0) 3 1
    ChunkCache::Ref moved = cache.Get(1, 5);
    ChunkCache::Ref to = std::move(moved);
    CHECK(moved.companion().empty());
    CHECK(to.companion().size() == static_cast<size_t>(kCompanionBytes));
  }
  for (int64_t chunk = 0; chunk < 4; ++chunk) CHECK_FALSE(source.Alive(chunk));
}

TEST_CASE("a load that attaches no companion, or one of the wrong size, fails the Get") {
  FakeSource source(4);
  ChunkCache none(kChunkBytes, 4 * kChunkBytes, EvictionPolicy::kLru, source.Function(), 16);
  const Error missing = testing::CaughtError([&] { none.Get(2, 0); });
  CHECK(missing.code() == ErrorCode::kInternal);
  CHECK(std::string(missing.what()).find("chunk 2 attached no companion") != std::string::npos);
  CompanionSource wrong_size(4, 15);
  ChunkCache wrong(kChunkBytes, 4 * kChunkBytes, EvictionPolicy::kLru, wrong_size.Function(), 16);
  CHECK(testing::CaughtError([&] { wrong.Get(0, 0); }).code() == ErrorCode::kInternal);
  ChunkCache plain(kChunkBytes, 4 * kChunkBytes, EvictionPolicy::kLru, wrong_size.Function());
  CHECK(testing::CaughtError([&] { plain.Get(0, 0); }).code() == ErrorCode::kInternal);
}

TEST_CASE("a load that adopts the wrong size, or delivers nothing, fails the Get") {
  ChunkCache wrong(kChunkBytes, 4 * kChunkBytes, EvictionPolicy::kLru,
                   [](int64_t, ChunkCache::LoadTarget& target) {
                     auto bytes = std::make_shared<std::vector<uint8_t>>(10);
                     target.Adopt(*bytes, bytes);
                     return LoadResult{};
                   });
  CHECK(testing::CaughtError([&] { wrong.Get(0, 0); }).code() == ErrorCode::kInternal);
  ChunkCache nothing(kChunkBytes, 4 * kChunkBytes, EvictionPolicy::kLru,
                     [](int64_t, ChunkCache::LoadTarget&) { return LoadResult{}; });
  const Error e = testing::CaughtError([&] { nothing.Get(3, 0); });
  CHECK(e.code() == ErrorCode::kInternal);
  CHECK(std::string(e.what()).find("chunk 3 delivered nothing") != std::string::npos);
}

TEST_CASE("invalid cache arguments are rejected as invalid arguments") {
  FakeSource source(1);
  auto code_of = [&](int64_t chunk_bytes, int64_t budget, ChunkCache::LoadFunction load) {
    try {
      ChunkCache cache(chunk_bytes, budget, EvictionPolicy::kLru, std::move(load));
    } catch (const Error& e) {
      return e.code();
    }
    return ErrorCode::kInternal;  // nothing thrown
  };
  CHECK(code_of(0, 10, source.Function()) == ErrorCode::kInvalidArgument);
  CHECK(code_of(10, -1, source.Function()) == ErrorCode::kInvalidArgument);
  CHECK(code_of(10, 10, nullptr) == ErrorCode::kInvalidArgument);
  CHECK_THROWS_AS(ChunkCache(10, 10, EvictionPolicy::kLru, source.Function(), -1), Error);
  CHECK(code_of(10, 0, source.Function()) == ErrorCode::kInternal);
}

}  // namespace
}  // namespace h5feed::cache
