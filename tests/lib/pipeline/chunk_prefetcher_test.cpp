// ChunkPrefetcher: which chunks it requests ahead of the steps taken, and when it stops. Loads
// go through the real ChunkCache into a synthetic dataset that records them; every test waits
// for the prefetch tasks before it looks, so what was loaded is exactly what was requested and
// not dropped.

#include "pipeline/chunk_prefetcher.h"

#include <doctest/doctest.h>
#include <tbb/task_arena.h>

#include <memory>
#include <mutex>
#include <numeric>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "cache/access_plan.h"
#include "cache/chunk_cache.h"
#include "source/read_ahead.h"
#include "synthetic_dataset.h"

namespace h5feed::pipeline {
namespace {

using testing::SyntheticDataset;

constexpr int64_t kChunkSamples = 4;
constexpr int64_t kSamples = 160;  // 40 chunks

std::vector<int64_t> Iota(int64_t n) {
  std::vector<int64_t> rows(static_cast<size_t>(n));
  std::iota(rows.begin(), rows.end(), int64_t{0});
  return rows;
}

// A plan over `order` in steps of `batch` rows, a cache with room for every chunk, and the
// chunks loaded so far.
struct Rig {
  Rig(const std::vector<int64_t>& order, int64_t batch, const std::vector<int64_t>& following = {})
      : data(kSamples, kChunkSamples, ImageShape{2, 2, 1}),
        plan(std::make_shared<const cache::AccessPlan>(
            order, batch, ChunkRows(kSamples, kChunkSamples), following)),
        cache(data.chunk_bytes(), kSamples * 4, cache::EvictionPolicy::kBelady,
              data.LoadFunction()),
        arena(2) {
    cache.SetPlan(plan);
    data.before_load = [this](int64_t chunk) {
      std::lock_guard lock(mutex);
      loaded.insert(chunk);
    };
  }

  // What was loaded once every task spawned so far has run.
  std::set<int64_t> Loaded(ChunkPrefetcher& prefetcher) {
    prefetcher.Wait();
    std::lock_guard lock(mutex);
    return loaded;
  }

  void Take(ChunkPrefetcher& prefetcher, int64_t step) {
    arena.execute([&] { prefetcher.StepTaken(step); });
  }
  void Release(ChunkPrefetcher& prefetcher) {
    arena.execute([&] { prefetcher.Release(); });
  }
  // The run's first step taken and gathered: what its requests loaded.
  std::set<int64_t> Start(ChunkPrefetcher& prefetcher, int64_t step) {
    Take(prefetcher, step);
    Release(prefetcher);
    return Loaded(prefetcher);
  }
  // A later step taken: what has been loaded since the start.
  std::set<int64_t> Step(ChunkPrefetcher& prefetcher, int64_t step) {
    Take(prefetcher, step);
    return Loaded(prefetcher);
  }

  SyntheticDataset data;
  std::shared_ptr<const cache::AccessPlan> plan;
  cache::ChunkCache cache;
  tbb::task_arena arena;
  std::mutex mutex;
  std::set<int64_t> loaded;  // guarded by mutex
};

using Chunks = std::set<int64_t>;

TEST_CASE("a step taken requests the chunks of the next two steps, once each") {
  Rig rig(Iota(kSamples), 4);  // step s reads chunk s
  ChunkPrefetcher prefetcher(*rig.plan, rig.cache, rig.arena, 0, {.steps = 2, .chunks = 0});
  CHECK(rig.Start(prefetcher, 0) == Chunks{1, 2});
  CHECK(rig.Step(prefetcher, 1) == Chunks{1, 2, 3});
  CHECK(rig.Step(prefetcher, 2) == Chunks{1, 2, 3, 4});
  CHECK(rig.data.loads() == 4);  // nothing requested twice
  CHECK(rig.cache.stats().prefetches == 4);
}

TEST_CASE("a chunk the step before reads is not requested for the step after it") {
  Rig rig(Iota(kSamples), 2);  // steps 2c and 2c + 1 read chunk c
  ChunkPrefetcher prefetcher(*rig.plan, rig.cache, rig.arena, 0, {.steps = 2, .chunks = 0});
  CHECK(rig.Start(prefetcher, 0) == Chunks{1});  // step 1's chunk 0 is step 0's
  CHECK(rig.Step(prefetcher, 1) == Chunks{1});   // step 3's chunk 1 is step 2's
  CHECK(rig.Step(prefetcher, 2) == Chunks{1, 2});
}

TEST_CASE("the horizon reaches past the steps while the chunks ahead fit the allowance") {
  Rig rig(Iota(kSamples), 4);
  ChunkPrefetcher prefetcher(*rig.plan, rig.cache, rig.arena, 0, {.steps = 1, .chunks = 5});
  CHECK(rig.Start(prefetcher, 0) == Chunks{1, 2, 3, 4, 5});
  // Step 1's chunk is no longer ahead: one more fits.
  CHECK(rig.Step(prefetcher, 1) == Chunks{1, 2, 3, 4, 5, 6});
}

TEST_CASE("past the epoch's last step it requests the next epoch's first chunks") {
  // An epoch of chunks 0-3 in steps of one chunk; the next starts with chunks 9 and 8.
  const std::vector<int64_t> following = {36, 37, 38, 39, 32, 33, 34, 35};
  Rig rig(Iota(16), 4, following);
  ChunkPrefetcher prefetcher(*rig.plan, rig.cache, rig.arena, 0, {.steps = 2, .chunks = 0});
  CHECK(rig.Start(prefetcher, 0) == Chunks{1, 2});
  CHECK(rig.Step(prefetcher, 1) == Chunks{1, 2, 3});
  CHECK(rig.Step(prefetcher, 2) == Chunks{1, 2, 3, 9});
  // The last: every next-epoch chunk asked for (again).
  CHECK(rig.Step(prefetcher, 3) == Chunks{1, 2, 3, 8, 9});
  CHECK(rig.data.loads() == 5);  // the cache declined what it held
  CHECK(rig.cache.stats().prefetches_past_epoch == 2);
}

TEST_CASE("requests wait until the first step has its rows, then start") {
  Rig rig(Iota(kSamples), 4);
  ChunkPrefetcher prefetcher(*rig.plan, rig.cache, rig.arena, 0, {.steps = 2, .chunks = 0});
  rig.Take(prefetcher, 0);
  CHECK(rig.Loaded(prefetcher).empty());
  rig.Release(prefetcher);
  CHECK(rig.Loaded(prefetcher) == Chunks{1, 2});
  rig.Release(prefetcher);  // once only
  CHECK(rig.Loaded(prefetcher) == Chunks{1, 2});
}

TEST_CASE("a request whose step was taken before it ran is dropped") {
  Rig rig(Iota(kSamples), 4);
  ChunkPrefetcher prefetcher(*rig.plan, rig.cache, rig.arena, 0, {.steps = 2, .chunks = 0});
  for (int64_t step = 0; step <= 2; ++step) rig.Take(prefetcher, step);
  rig.Release(prefetcher);  // steps 1 and 2 are taken: their own Gets load their chunks
  CHECK(rig.Loaded(prefetcher) == Chunks{3, 4});
}

TEST_CASE("a run resumed at a step requests from that step on") {
  Rig rig(Iota(kSamples), 4);
  ChunkPrefetcher prefetcher(*rig.plan, rig.cache, rig.arena, 10, {.steps = 2, .chunks = 0});
  CHECK(rig.Start(prefetcher, 10) == Chunks{11, 12});
}

TEST_CASE("after Cancel no request starts, and with no steps ahead none is made") {
  Rig rig(Iota(kSamples), 4);
  {
    ChunkPrefetcher prefetcher(*rig.plan, rig.cache, rig.arena, 0, {.steps = 2, .chunks = 0});
    rig.Take(prefetcher, 0);
    prefetcher.Cancel();
    rig.Release(prefetcher);
    rig.Take(prefetcher, 1);
    CHECK(rig.Loaded(prefetcher).empty());
  }
  {
    ChunkPrefetcher prefetcher(*rig.plan, rig.cache, rig.arena, 0, {.steps = 0, .chunks = 8});
    CHECK(rig.Start(prefetcher, 0).empty());
  }
  {
    // Destroyed with requests held and running: it cancels and waits for them.
    ChunkPrefetcher prefetcher(*rig.plan, rig.cache, rig.arena, 0, {.steps = 2, .chunks = 8});
    rig.Take(prefetcher, 0);
    rig.Release(prefetcher);
  }
  CHECK(rig.cache.stats().failed_loads == 0);
}

// The read-ahead of a medium whose reads wait: records what the walker tells it, and holds at
// most `room` chunks' bytes ahead (a remote file's bandwidth x round trip, in chunks).
class RecordingReadAhead final : public source::ReadAhead {
 public:
  explicit RecordingReadAhead(size_t room) : room_(room) {}

  io::Ahead Fetch(int64_t chunk) override {
    if (held.contains(chunk)) return io::Ahead::kHeld;
    if (held.size() >= room_) return io::Ahead::kFull;
    held.insert(chunk);
    fetched.push_back(chunk);
    return io::Ahead::kStarted;
  }
  void Drop(int64_t chunk) override {
    held.erase(chunk);
    dropped.push_back(chunk);
  }
  void DropAll() override {
    held.clear();
    ++drops_of_all;
  }

  std::set<int64_t> held;        // fetched and not dropped
  std::vector<int64_t> fetched;  // in the order asked
  std::vector<int64_t> dropped;
  int drops_of_all = 0;

 private:
  const size_t room_;
};

TEST_CASE("the source is told the chunks ahead in the order steps need them, until it is full") {
  Rig rig(Iota(kSamples), 4);  // step s reads chunk s
  RecordingReadAhead source(5);
  ChunkPrefetcher prefetcher(*rig.plan, rig.cache, rig.arena, 0, {.steps = 2, .chunks = 0},
                             &source);
  // At the run's start, before any request is released: bytes take no worker thread.
  CHECK(source.drops_of_all == 1);
  CHECK(source.fetched == std::vector<int64_t>{0, 1, 2, 3, 4});
  // Step 2 is being assembled: the bytes of steps 0 and 1 were used (or not needed) and are
  // dropped; their room goes to steps 5 and 6.
  rig.cache.SetFirstPendingStep(2);
  rig.Take(prefetcher, 2);
  CHECK(source.dropped == std::vector<int64_t>{0, 1});
  CHECK(source.fetched == std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6});
  CHECK(source.held == std::set<int64_t>{2, 3, 4, 5, 6});
}

TEST_CASE("chunks the cache holds are not fetched ahead, and a new run drops the last one's") {
  Rig rig(Iota(kSamples), 4);
  RecordingReadAhead source(3);
  {
    ChunkPrefetcher prefetcher(*rig.plan, rig.cache, rig.arena, 0, {.steps = 2, .chunks = 0},
                               &source);
    rig.Start(prefetcher, 0);  // chunks 1 and 2 loaded into the cache
  }
  CHECK(rig.cache.Holds(1));
  CHECK(rig.cache.Holds(2));
  source.fetched.clear();
  ChunkPrefetcher resumed(*rig.plan, rig.cache, rig.arena, 0, {.steps = 2, .chunks = 0}, &source);
  CHECK(source.drops_of_all == 2);
  CHECK(source.fetched == std::vector<int64_t>{0, 3, 4});
}

}  // namespace
}  // namespace h5feed::pipeline
