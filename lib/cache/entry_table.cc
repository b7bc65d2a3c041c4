#include "cache/entry_table.h"

#include <algorithm>
#include <utility>

namespace h5feed::cache {
namespace {

// Grows a vector's capacity ahead of need, doubling, so that the pushes which must not throw
// (those made while evicting, possibly from a Ref's destructor) never reallocate.
template <typename T>
void ReserveFor(std::vector<T>& v, size_t n) {
  if (v.capacity() < n) v.reserve(std::max(n, 2 * v.capacity()));
}

}  // namespace

CacheEntry* EntryTable::InsertLoading(int64_t chunk, uint64_t clock) {
  std::unique_ptr<CacheEntry> owned;
  if (!free_entries_.empty()) {
    owned = std::move(free_entries_.back());
    free_entries_.pop_back();
  } else {
    ReserveFor(free_entries_, resident_.size() + 1);
    ReserveFor(released_owners_, 2 * (resident_.size() + 1));
    owned = std::make_unique<CacheEntry>();
  }
  ReserveFor(resident_, resident_.size() + 1);
  CacheEntry* e = owned.get();
  // Index nodes are recycled too (extract/insert), so a miss in steady state allocates nothing.
  if (!free_nodes_.empty()) {
    Index::node_type node = std::move(free_nodes_.back());
    free_nodes_.pop_back();
    node.key() = chunk;
    node.mapped() = e;
    index_.insert(std::move(node));
  } else {
    ReserveFor(free_nodes_, index_.size() + 1);
    index_.emplace(chunk, e);
  }
  e->chunk = chunk;
  e->state = CacheEntry::State::kLoading;
  e->pins = 1;
  e->last_use = clock;
  e->slot = resident_.size();
  resident_.push_back(std::move(owned));
  return e;
}

void EntryTable::Unindex(int64_t chunk) {
  // Capacity for every node was reserved when it was created: this push never allocates.
  free_nodes_.push_back(index_.extract(chunk));
}

std::unique_ptr<CacheEntry> EntryTable::RemoveResident(CacheEntry* e) {
  const size_t slot = e->slot;
  std::unique_ptr<CacheEntry> owned = std::move(resident_[slot]);
  if (slot + 1 != resident_.size()) {
    resident_[slot] = std::move(resident_.back());
    resident_[slot]->slot = slot;
  }
  resident_.pop_back();
  return owned;
}

void EntryTable::Remove(CacheEntry* e) {
  std::unique_ptr<CacheEntry> owned = RemoveResident(e);
  owned->error = LoadError();
  if (owned->owner) released_owners_.push_back(std::move(owned->owner));
  if (owned->companion_owner) released_owners_.push_back(std::move(owned->companion_owner));
  owned->data = {};
  owned->companion = {};
  if (owned->buffer) {
    const auto buffers = static_cast<int64_t>(resident_.size() + free_buffers_.size() + 1);
    if (buffers * entry_bytes_ <= budget_bytes_) {
      free_buffers_.push_back(std::move(owned->buffer));
    } else {
      owned->buffer.reset();
      --buffers_;
    }
  }
  free_entries_.push_back(std::move(owned));
}

std::unique_ptr<uint8_t[]> EntryTable::TakeFreeBuffer() {
  if (free_buffers_.empty()) return nullptr;
  std::unique_ptr<uint8_t[]> buffer = std::move(free_buffers_.back());
  free_buffers_.pop_back();
  return buffer;
}

void EntryTable::BufferAllocated() {
  ++buffers_;
  ReserveFor(free_buffers_, buffers_);  // so that giving it back never allocates
}

void EntryTable::Reserve(int64_t entries) {
  const int64_t fit = entry_bytes_ > 0 ? budget_bytes_ / entry_bytes_ : 0;
  const auto wanted = static_cast<size_t>(std::min(entries, fit));
  ReserveFor(free_buffers_, wanted);
  while (buffers_ < wanted) {
    auto buffer = std::make_unique_for_overwrite<uint8_t[]>(static_cast<size_t>(chunk_bytes_));
    // Touch every page now: a fresh buffer costs a page fault and the kernel zeroing each
    // 4 KiB page at first write, which the first epoch would otherwise pay (docs/reader.md,
    // "What it costs").
    for (int64_t i = 0; i < chunk_bytes_; i += 4096) buffer[static_cast<size_t>(i)] = 0;
    free_buffers_.push_back(std::move(buffer));
    ++buffers_;
  }
}

void EntryTable::TakeReleased(std::vector<std::shared_ptr<const void>>& doomed) {
  doomed.reserve(released_owners_.size());
  for (auto& owner : released_owners_) doomed.push_back(std::move(owner));
  released_owners_.clear();  // keeps its capacity: queuing never allocates
}

}  // namespace h5feed::cache
