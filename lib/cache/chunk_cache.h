#pragma once
// Decompressed chunks held in memory within a byte budget.
//
// - Entries in use are pinned (a Ref keeps its entry alive and unevictable).
// - Two tasks that need the same absent chunk load it once: the second waits for the first,
//   or, through GetUnlessLoading, does other work first.
// - Eviction: Belady (the chunk whose next use in the AccessPlan is farthest, never-used-again
//   first) or LRU for comparison.
// - The budget may be exceeded only by entries pinned or loading at once (about one per worker
//   thread), never by unpinned entries.
// - Prefetch(chunk, step) loads ahead only what it can fit without evicting a chunk needed
//   before `step`.
// Thread-safety: every member may be called from many threads at once (internal mutex; loads
// run outside it). Details in the class comment.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>

#include "cache/access_plan.h"
#include "h5feed/loader_options.h"

namespace h5feed::cache {

struct CacheEntry;  // cache/cache_entry.h

// The policy the user chose (LoaderOptions::eviction), used as it is.
using EvictionPolicy = ::h5feed::EvictionPolicy;

// Counters since construction. With no failed load:
//   hits + misses == Get() calls;  loads == misses + prefetches;
//   loads - evictions == entries resident (resident_bytes / an entry's bytes, once all loads
//   ended).
struct CacheStats {
  uint64_t hits = 0;        // Get() found the chunk present (or being loaded by another task)
  uint64_t misses = 0;      // Get() had to load it
  uint64_t loads = 0;       // chunk reads started (misses + prefetches), failed ones included
  uint64_t prefetches = 0;  // loads started by Prefetch()
  // Of those, loads for the steps the plan carries on with after its epoch (AccessPlan,
  // `following`): the next epoch's start, read during this one.
  uint64_t prefetches_past_epoch = 0;
  uint64_t evictions = 0;
  uint64_t failed_loads = 0;  // loads whose LoadFunction threw (also counted in loads)
  uint64_t bytes_read = 0;    // from the file, over all successful loads
  uint64_t bytes_decoded = 0;
  // The most bytes resident at once: <= max(budget, P entries' bytes), P = entries pinned or
  // loading at once (see ChunkCache).
  uint64_t peak_resident_bytes = 0;
};

// What a load reports (bytes read from the file and decoded).
struct LoadResult {
  uint64_t bytes_read = 0;
  uint64_t bytes_decoded = 0;
};

// Memory. A load either fills a chunk_bytes buffer of the cache's own (LoadTarget::Buffer),
// allocated once and recycled through a free list when its entry is evicted, so a cache in
// steady state allocates nothing; or it hands over bytes it holds already (LoadTarget::Adopt:
// an uncompressed chunk mapped from the file), released when the entry is evicted. A cache
// with companion_bytes also keeps, with each chunk, what its load read beside it
// (LoadTarget::Attach: the rows of the fields streamed with the images), released with it.
// Either way an entry counts chunk_bytes + companion_bytes ("an entry" below). Resident bytes
// (loading, ready, and failed entries not yet released by their waiters) stay <= budget while
// nothing is pinned; a load that finds every resident entry pinned or loading goes over, so
// resident bytes <= max(budget, P entries), with P the entries pinned or loading at once (about one
// per thread calling Get). The excess is evicted as soon as those entries are unpinned, and free
// buffers are kept only while they fit in the budget, so allocated memory obeys the same bound.
//
// Eviction considers only ready, unpinned entries (cache/eviction.h). Belady picks the one whose
// NextUse is largest (AccessPlan::kNever first), ties to the least recently used; "now" is the
// step of the Get that needs room, and for Prefetch and unpinning the furthest step any Get has
// asked for since the last SetPlan (the consumer's position, never the prefetch's future step).
// Without a plan Belady falls back to LRU. The entries and their recycled memory are an
// EntryTable (cache/entry_table.h); this class adds the lock, the loads and the policy.
//
// Thread-safety: every member may be called from many threads at once. State is guarded by one
// internal mutex, which is never held while a LoadFunction runs; a Get that finds its chunk
// being loaded blocks its thread on a condition variable until the load ends. Lifetime: the
// cache must outlive every Ref and every call in progress (join the tasks that call Get and
// Prefetch before destroying it).
class ChunkCache {
 public:
  class LoadTarget;
  class Ref;

  // Puts chunk `chunk` into `target` (fills its Buffer() or Adopts bytes); throws on failure
  // (the error reaches every task waiting for that chunk, and a later Get retries). Called on
  // the thread of the Get or Prefetch that misses, without the cache's mutex held, possibly for
  // several chunks at once.
  using LoadFunction = std::function<LoadResult(int64_t chunk, LoadTarget& target)>;

  // `companion_bytes`: what every load attaches to its chunk besides (LoadTarget::Attach; 0:
  // nothing), counted with chunk_bytes against the budget: an entry is chunk_bytes +
  // companion_bytes. Throws Error(kInvalidArgument) when chunk_bytes < 1, budget_bytes or
  // companion_bytes < 0 or `load` is empty. A budget below an entry is allowed: nothing stays
  // cached once unpinned.
  ChunkCache(int64_t chunk_bytes, int64_t budget_bytes, EvictionPolicy policy, LoadFunction load,
             int64_t companion_bytes = 0);
  ~ChunkCache();
  ChunkCache(const ChunkCache&) = delete;
  ChunkCache& operator=(const ChunkCache&) = delete;

  // Installs the plan of the epoch being read (Belady needs it; LRU ignores it for eviction but
  // Prefetch uses it to judge what it may evict) and resets the consumer position to step 0.
  // nullptr removes the plan. Entries already resident stay. Call it between epochs: a Get of
  // the previous epoch made afterwards would move the consumer position to its (old) step.
  void SetPlan(std::shared_ptr<const AccessPlan> plan);

  // The chunk, loaded if absent, pinned while the Ref lives. `step`: the step needing it.
  // Rethrows what the LoadFunction threw, on this thread and on every Get waiting for the same
  // load; the entry is then dropped, and a later Get loads it again.
  Ref Get(int64_t chunk, int64_t step);

  // Get, except that it returns nullopt at once, counting nothing, when another task is loading
  // the chunk: a caller with other chunks to gather does those first instead of waiting (two
  // steps that need the same chunks then load different ones rather than one trailing the
  // other, each waiting on the chunk the other is loading).
  std::optional<Ref> GetUnlessLoading(int64_t chunk, int64_t step);

  // Allocates and touches the buffers of up to `entries` chunks now (never more than the
  // budget holds), so loads during the epoch neither allocate nor page-fault. Pointless when
  // loads Adopt their chunks.
  void Reserve(int64_t entries);

  // Steps before `step` are finished: nothing they read is needed for them any more. With
  // several steps assembled at once, Belady measures next use from the oldest unfinished
  // step, so a later step never evicts a chunk an earlier one in flight still needs, and a
  // Prefetch for a finished step is refused. Monotonic; SetPlan forgets it.
  void SetFirstPendingStep(int64_t step);

  // Loads `chunk` for `step` on the calling thread if it is absent and room can be made without
  // evicting a chunk needed sooner than `step`. Returns whether it loaded. Without a plan it
  // loads only into free budget. Rethrows what the LoadFunction threw (waiters get it too).
  bool Prefetch(int64_t chunk, int64_t step);

  // Whether `chunk` is resident or being loaded (for a read-ahead that skips what the cache
  // has or is fetching; the answer may change as soon as it is given).
  bool Holds(int64_t chunk) const;
  // The oldest step still being assembled (SetFirstPendingStep), else the furthest step a Get
  // asked for since SetPlan: what the consumer has not finished.
  int64_t horizon() const;

  CacheStats stats() const;
  int64_t chunk_bytes() const;
  int64_t companion_bytes() const;
  int64_t budget_bytes() const;
  int64_t resident_bytes() const;

 private:
  using Entry = CacheEntry;
  struct Impl;
  // Get (wait) and GetUnlessLoading (!wait): the entry pinned in a Ref.
  std::optional<Ref> Acquire(int64_t chunk, int64_t step, bool wait);

  std::unique_ptr<Impl> impl_;
};

// Where one load puts its chunk: one of Buffer() (filled by the load) or Adopt(). Lives only
// during the LoadFunction call.
class ChunkCache::LoadTarget {
 public:
  // chunk_bytes of the cache's memory to fill (recycled, or allocated on the first call; the
  // same span on later calls). Throws std::bad_alloc when memory runs out.
  std::span<uint8_t> Buffer();
  // The chunk is `bytes` (exactly chunk_bytes), valid while `owner` lives: the entry keeps
  // `owner` until it is evicted, and uses no buffer. Throws Error(kInternal) for a wrong size.
  void Adopt(std::span<const uint8_t> bytes, std::shared_ptr<const void> owner);
  // What was read with the chunk: `bytes` (exactly companion_bytes), valid while `owner`
  // lives, kept with the entry until it is evicted (Ref::companion). Required of every load of
  // a cache with companion_bytes; a load without one fails with Error(kInternal). Throws
  // Error(kInternal) for a wrong size.
  void Attach(std::span<const uint8_t> bytes, std::shared_ptr<const void> owner);

 private:
  friend class ChunkCache;
  LoadTarget(Impl* cache, Entry* entry) : cache_(cache), entry_(entry) {}
  Impl* cache_;
  Entry* entry_;
};

// A pinned entry. Move-only; destroying it (or Reset) unpins. An empty Ref (default-constructed
// or moved from) has empty data().
class ChunkCache::Ref {
 public:
  Ref() = default;
  Ref(Ref&& other) noexcept;
  Ref& operator=(Ref&& other) noexcept;
  ~Ref();
  // chunk_bytes bytes, valid and unchanged while this Ref holds the pin.
  std::span<const uint8_t> data() const { return data_; }
  // companion_bytes bytes attached by the load (LoadTarget::Attach), valid as data() is.
  std::span<const uint8_t> companion() const { return companion_; }
  explicit operator bool() const { return entry_ != nullptr; }
  // Unpins now; the Ref becomes empty.
  void Reset();

 private:
  friend class ChunkCache;
  Ref(Impl* cache, Entry* entry, std::span<const uint8_t> data, std::span<const uint8_t> companion)
      : cache_(cache), entry_(entry), data_(data), companion_(companion) {}
  Impl* cache_ = nullptr;
  Entry* entry_ = nullptr;
  std::span<const uint8_t> data_;
  std::span<const uint8_t> companion_;
};

}  // namespace h5feed::cache
