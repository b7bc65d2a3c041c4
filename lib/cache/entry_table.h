#pragma once
// The ChunkCache's entries and their memory: the resident entries (loading, ready, and failed
// ones still pinned by their waiters), the index from chunk to entry, and the parts recycled so
// that a cache in steady state allocates nothing: entries, index nodes and chunk buffers. A
// buffer is kept for reuse only while all buffers fit in the budget, so allocated memory obeys
// the bound resident memory does. Owners of adopted bytes that an entry lets go are queued for
// the cache to destroy outside its mutex (unmapping a chunk takes tens of microseconds).
//
// Not thread-safe: the ChunkCache's mutex guards every call. Removal and recycling never
// allocate (they may run in a Ref's destructor): capacity for them is reserved as entries,
// nodes and buffers are created.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "cache/cache_entry.h"

namespace h5feed::cache {

class EntryTable {
 public:
  // Each entry counts `entry_bytes` against `budget_bytes`: its chunk's `chunk_bytes` (the size
  // of a buffer) and what is attached to it (ChunkCache's companion_bytes).
  EntryTable(int64_t chunk_bytes, int64_t entry_bytes, int64_t budget_bytes)
      : chunk_bytes_(chunk_bytes), entry_bytes_(entry_bytes), budget_bytes_(budget_bytes) {}

  // The chunk's loading or ready entry, or nullptr.
  CacheEntry* Find(int64_t chunk) const {
    auto it = index_.find(chunk);
    return it == index_.end() ? nullptr : it->second;
  }
  // Loading, ready and failed entries; indexed by CacheEntry::slot.
  std::span<const std::unique_ptr<CacheEntry>> resident() const { return resident_; }
  int64_t resident_bytes() const { return static_cast<int64_t>(resident_.size()) * entry_bytes_; }

  // A loading entry for `chunk`, pinned once (for the loading thread), resident and indexed,
  // last used at `clock`. Allocations come before the entry is published: a bad_alloc leaves
  // the table as it was (at worst a recycled buffer is freed).
  CacheEntry* InsertLoading(int64_t chunk, uint64_t clock);
  // The chunk leaves the index (a later Find misses); its entry stays resident.
  void Unindex(int64_t chunk);
  // The entry leaves the resident set and is kept for the next InsertLoading, its buffer too
  // while all buffers fit in the budget; adopted bytes and companions are let go (queued, see
  // TakeReleased).
  void Remove(CacheEntry* e);

  // A buffer for a load: a recycled one, or nullptr (then allocate one outside the cache's
  // mutex and report it with BufferAllocated).
  std::unique_ptr<uint8_t[]> TakeFreeBuffer();
  void BufferAllocated();
  // Allocates and touches the buffers of up to `entries` chunks (never more than the budget
  // holds), kept free for the loads to come.
  void Reserve(int64_t entries);

  // Moves the owners Remove let go into `doomed`, for the cache to destroy outside its mutex.
  void TakeReleased(std::vector<std::shared_ptr<const void>>& doomed);

 private:
  using Index = std::unordered_map<int64_t, CacheEntry*>;

  std::unique_ptr<CacheEntry> RemoveResident(CacheEntry* e);

  const int64_t chunk_bytes_;
  const int64_t entry_bytes_;
  const int64_t budget_bytes_;
  std::vector<std::unique_ptr<CacheEntry>> resident_;
  Index index_;  // chunk -> its loading or ready entry
  std::vector<Index::node_type> free_nodes_;
  std::vector<std::unique_ptr<CacheEntry>> free_entries_;  // without buffers
  std::vector<std::unique_ptr<uint8_t[]>> free_buffers_;
  // Owners (of adopted chunks and of companions) let go by Remove, until TakeReleased; capacity
  // for two per entry.
  std::vector<std::shared_ptr<const void>> released_owners_;
  size_t buffers_ = 0;  // allocated: in entries and in free_buffers_
};

}  // namespace h5feed::cache
