#pragma once
// Which resident chunk the ChunkCache evicts to make room.
//
// Belady's policy (with the epoch's AccessPlan): the chunk whose next use at or after step
// `now` is farthest, AccessPlan::kNever first; optimal here because the sampler knows the
// order. LRU (no plan): the least recently used. Ties go to the least recently used. Only
// ready, unpinned entries are candidates.
//
// A scan of the resident entries: O(entries x log touches) per eviction, microseconds for
// hundreds of entries, against the milliseconds a chunk load takes. Reads the entries' fields
// the cache's mutex guards, so it is called with that mutex held.

#include <cstdint>
#include <memory>
#include <span>

#include "cache/access_plan.h"
#include "cache/cache_entry.h"

namespace h5feed::cache {

// The entry to evict, or nullptr when every entry is pinned or loading. `plan`: Belady's next
// uses; nullptr for LRU.
CacheEntry* PickVictim(std::span<const std::unique_ptr<CacheEntry>> resident,
                       const AccessPlan* plan, int64_t now);

}  // namespace h5feed::cache
