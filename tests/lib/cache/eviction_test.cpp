// The ChunkCache's choice of victim (cache/eviction.h), on entries set up by hand.

#include "cache/eviction.h"

#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "cache/access_plan.h"
#include "cache/cache_entry.h"

namespace h5feed::cache {
namespace {

using State = CacheEntry::State;

struct Entries {
  // A ready, unpinned entry for `chunk`, last used at `last_use`.
  CacheEntry* Add(int64_t chunk, uint64_t last_use, State state = State::kReady, int64_t pins = 0) {
    auto e = std::make_unique<CacheEntry>();
    e->chunk = chunk;
    e->last_use = last_use;
    e->state = state;
    e->pins = pins;
    e->slot = all.size();
    all.push_back(std::move(e));
    return all.back().get();
  }
  std::vector<std::unique_ptr<CacheEntry>> all;
};

// Chunks of one row, batches of one row: step s reads chunk order[s].
AccessPlan Plan(const std::vector<int64_t>& order) {
  return AccessPlan(order, 1, ChunkRows(10, 1));
}

TEST_CASE("Belady picks the chunk used farthest ahead, a chunk never used again first") {
  const AccessPlan plan = Plan({0, 2, 0, 3, 2});
  Entries entries;
  CacheEntry* zero = entries.Add(0, 1);
  CacheEntry* one = entries.Add(1, 2);  // never used
  CacheEntry* two = entries.Add(2, 3);
  CHECK(PickVictim(entries.all, &plan, 0) == one);
  one->pins = 1;
  CHECK(PickVictim(entries.all, &plan, 0) == two);   // next used at 1, chunk 0 at 0
  CHECK(PickVictim(entries.all, &plan, 1) == zero);  // from step 1: chunk 0 at 2, chunk 2 at 1
  CHECK(PickVictim(entries.all, &plan, 3) == zero);  // chunk 0 never again, chunk 2 at 4
}

TEST_CASE("without a plan the least recently used goes, and ties go to it under Belady") {
  Entries entries;
  entries.Add(5, 7);
  CacheEntry* oldest = entries.Add(6, 3);
  entries.Add(7, 9);
  CHECK(PickVictim(entries.all, nullptr, 0) == oldest);
  const AccessPlan plan = Plan({0});  // none of 5, 6, 7 used again: a three-way tie
  CHECK(PickVictim(entries.all, &plan, 0) == oldest);
}

TEST_CASE("pinned, loading and failed entries are never picked") {
  Entries entries;
  entries.Add(0, 1, State::kReady, 2);
  entries.Add(1, 2, State::kLoading, 1);
  entries.Add(2, 3, State::kFailed, 1);
  CHECK(PickVictim(entries.all, nullptr, 0) == nullptr);
  CacheEntry* ready = entries.Add(3, 4);
  CHECK(PickVictim(entries.all, nullptr, 0) == ready);
}

}  // namespace
}  // namespace h5feed::cache
