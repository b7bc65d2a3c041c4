// The ChunkCache's entries and their recycled memory (cache/entry_table.h).

#include "cache/entry_table.h"

#include <doctest/doctest.h>

#include <memory>
#include <vector>

namespace h5feed::cache {
namespace {

constexpr int64_t kChunkBytes = 64;

TEST_CASE("an inserted chunk is found, loading and pinned once, until it is unindexed") {
  EntryTable table(kChunkBytes, kChunkBytes, 4 * kChunkBytes);
  CacheEntry* e = table.InsertLoading(7, 42);
  CHECK(table.Find(7) == e);
  CHECK(table.Find(8) == nullptr);
  CHECK(e->chunk == 7);
  CHECK(e->state == CacheEntry::State::kLoading);
  CHECK(e->pins == 1);
  CHECK(e->last_use == 42);
  CHECK(table.resident_bytes() == kChunkBytes);
  table.Unindex(7);
  CHECK(table.Find(7) == nullptr);
  CHECK(table.resident_bytes() == kChunkBytes);  // resident until removed (a failed load)
  table.Remove(e);
  CHECK(table.resident_bytes() == 0);
}

TEST_CASE("removing an entry keeps every other entry at its slot") {
  EntryTable table(kChunkBytes, kChunkBytes, 8 * kChunkBytes);
  std::vector<CacheEntry*> entries;
  for (int64_t chunk = 0; chunk < 5; ++chunk) entries.push_back(table.InsertLoading(chunk, 0));
  table.Unindex(1);
  table.Remove(entries[1]);
  REQUIRE(table.resident().size() == 4);
  for (size_t slot = 0; slot < table.resident().size(); ++slot) {
    CHECK(table.resident()[slot]->slot == slot);
    CHECK(table.Find(table.resident()[slot]->chunk) == table.resident()[slot].get());
  }
}

TEST_CASE("entries and buffers are recycled while the buffers fit in the budget") {
  EntryTable table(kChunkBytes, kChunkBytes, 2 * kChunkBytes);
  CHECK(table.TakeFreeBuffer() == nullptr);
  std::vector<CacheEntry*> entries;
  std::vector<uint8_t*> buffers;
  for (int64_t chunk = 0; chunk < 3; ++chunk) {  // one over the budget: a pinned overshoot
    CacheEntry* e = table.InsertLoading(chunk, 0);
    e->buffer = std::make_unique<uint8_t[]>(kChunkBytes);
    table.BufferAllocated();
    entries.push_back(e);
    buffers.push_back(e->buffer.get());
  }
  for (CacheEntry* e : entries) {
    table.Unindex(e->chunk);
    table.Remove(e);
  }
  // The first removal found 3 buffers (over the budget of 2) and freed its own; the others
  // were kept.
  std::unique_ptr<uint8_t[]> a = table.TakeFreeBuffer();
  std::unique_ptr<uint8_t[]> b = table.TakeFreeBuffer();
  CHECK(table.TakeFreeBuffer() == nullptr);
  CHECK(a.get() == buffers[2]);
  CHECK(b.get() == buffers[1]);
  CacheEntry* reused = table.InsertLoading(9, 0);
  CHECK((reused == entries[0] || reused == entries[1] || reused == entries[2]));
  CHECK(reused->buffer == nullptr);  // entries are kept without their buffers
}

TEST_CASE("the owner of adopted bytes is let go when its entry is removed") {
  EntryTable table(kChunkBytes, kChunkBytes, 4 * kChunkBytes);
  auto owner = std::make_shared<int>(1);
  CacheEntry* e = table.InsertLoading(3, 0);
  e->owner = owner;
  table.Unindex(3);
  table.Remove(e);
  CHECK(owner.use_count() == 2);  // queued in the table, not destroyed there
  std::vector<std::shared_ptr<const void>> doomed;
  table.TakeReleased(doomed);
  CHECK(doomed.size() == 1);
  doomed.clear();
  CHECK(owner.use_count() == 1);
}

TEST_CASE("Reserve allocates the buffers asked for, at most what the budget holds") {
  EntryTable table(kChunkBytes, kChunkBytes, 3 * kChunkBytes + 10);
  table.Reserve(5);
  int free = 0;
  while (table.TakeFreeBuffer()) ++free;
  CHECK(free == 3);
  EntryTable smaller(kChunkBytes, kChunkBytes, 8 * kChunkBytes);
  smaller.Reserve(2);
  int fewer = 0;
  while (smaller.TakeFreeBuffer()) ++fewer;
  CHECK(fewer == 2);
}

}  // namespace
}  // namespace h5feed::cache
