#include "cache/chunk_cache.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "h5feed/error.h"

namespace h5feed::cache {
namespace {

// Grows a vector's capacity ahead of need, doubling, so that the pushes which must not throw
// (those made while evicting, possibly from a Ref's destructor) never reallocate.
template <typename T>
void ReserveFor(std::vector<T>& v, size_t n) {
  if (v.capacity() < n) v.reserve(std::max(n, 2 * v.capacity()));
}

// What a failed load threw. An h5feed::Error is kept as code and message so every waiter throws
// its own copy: no exception object is shared between threads (which also keeps
// ThreadSanitizer quiet: libstdc++'s exception reference counts are invisible to it). Anything
// else is rethrown to the waiters as the one shared exception_ptr.
struct LoadError {
  bool is_error = false;
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
  std::exception_ptr other;

  [[noreturn]] void Throw() const {
    if (is_error) throw Error(code, message);
    std::rethrow_exception(other);
  }
};

}  // namespace

// One chunk's slot. `chunk` is written under the mutex before a load starts; `buffer`, `owner`
// and `data` are set by the loading thread without the mutex, and everyone else reads them only
// after seeing kReady (or kFailed) under the mutex. All other fields are protected by
// Impl::mutex_.
struct ChunkCache::Entry {
  enum class State { kLoading, kReady, kFailed };

  int64_t chunk = -1;
  State state = State::kLoading;
  int64_t pins = 0;          // Refs, waiting Gets and the loading thread
  uint64_t last_use = 0;     // Impl::clock_ at the last Get or load, for LRU
  size_t slot = 0;           // position in Impl::resident_
  LoadError error;           // kFailed: what the load threw, for the waiters
  std::unique_ptr<uint8_t[]> buffer;   // LoadTarget::Buffer's, or null
  std::shared_ptr<const void> owner;   // LoadTarget::Adopt's, or null
  std::span<const uint8_t> data;       // the chunk, once kReady
};

struct ChunkCache::Impl {
  using Index = std::unordered_map<int64_t, Entry*>;

  Impl(int64_t chunk_bytes, int64_t budget_bytes, EvictionPolicy policy, LoadFunction load)
      : chunk_bytes_(chunk_bytes),
        budget_bytes_(budget_bytes),
        policy_(policy),
        load_(std::move(load)) {}

  int64_t ResidentBytes() const { return static_cast<int64_t>(resident_.size()) * chunk_bytes_; }

  // The chunk's entry, ready and pinned once for the caller; nullptr only when `wait` is false
  // and another task is loading the chunk.
  Entry* Get(int64_t chunk, int64_t step, bool wait) {
    std::unique_lock lock(mutex_);
    consumer_step_ = std::max(consumer_step_, step);
    if (auto it = index_.find(chunk); it != index_.end()) {
      Entry* e = it->second;
      if (!wait && e->state == Entry::State::kLoading) return nullptr;
      ++stats_.hits;
      ++e->pins;  // a waiter's pin keeps even a failed entry alive until it has read the error
      e->last_use = ++clock_;
      if (e->state == Entry::State::kLoading) {
        load_ended_.wait(lock, [e] { return e->state != Entry::State::kLoading; });
      }
      if (e->state == Entry::State::kFailed) {
        const LoadError error = e->error;
        UnpinLocked(e);
        lock.unlock();
        error.Throw();
      }
      return e;
    }
    MakeRoom(first_pending_ >= 0 ? std::min(step, first_pending_) : step);
    Entry* e = InsertLoading(chunk);
    ++stats_.misses;
    ++stats_.loads;
    Load(e, lock);
    return e;
  }

  bool Prefetch(int64_t chunk, int64_t step) {
    std::unique_lock lock(mutex_);
    if (index_.contains(chunk) || step < Horizon()) return false;
    // Decided and acted on under one lock: room is made only from victims needed after `step`.
    while (ResidentBytes() + chunk_bytes_ > budget_bytes_) {
      if (!plan_) return false;
      Entry* victim = PickVictim(Horizon());
      if (victim == nullptr || plan_->NextUse(victim->chunk, Horizon()) <= step) {
        return false;
      }
      Evict(victim);
    }
    Entry* e = InsertLoading(chunk);
    ++stats_.loads;
    ++stats_.prefetches;
    if (plan_ && step >= plan_->epoch_steps()) ++stats_.prefetches_past_epoch;
    Load(e, lock);
    UnpinLocked(e);
    return true;
  }

  void Unpin(Entry* e) {
    std::lock_guard lock(mutex_);
    UnpinLocked(e);
  }

  void SetPlan(std::shared_ptr<const AccessPlan> plan) {
    std::lock_guard lock(mutex_);
    plan_ = std::move(plan);
    consumer_step_ = 0;
    first_pending_ = -1;
  }

  void SetFirstPendingStep(int64_t step) {
    std::lock_guard lock(mutex_);
    first_pending_ = std::max(first_pending_, step);
  }

  void Reserve(int64_t entries) {
    std::lock_guard lock(mutex_);
    const int64_t fit = chunk_bytes_ > 0 ? budget_bytes_ / chunk_bytes_ : 0;
    const auto wanted = static_cast<size_t>(std::min(entries, fit));
    ReserveFor(free_buffers_, wanted);
    while (buffers_ < wanted) {
      auto buffer = std::make_unique_for_overwrite<uint8_t[]>(static_cast<size_t>(chunk_bytes_));
      // Touch every page now: a fresh buffer costs a page fault and the kernel zeroing each
      // 4 KiB page at first write, 10-15% of the first epoch on a CIFAR-shaped file.
      for (int64_t i = 0; i < chunk_bytes_; i += 4096) buffer[static_cast<size_t>(i)] = 0;
      free_buffers_.push_back(std::move(buffer));
      ++buffers_;
    }
  }

  // A free buffer, or a new one (allocated without the mutex held).
  std::unique_ptr<uint8_t[]> TakeBuffer() {
    {
      std::lock_guard lock(mutex_);
      if (!free_buffers_.empty()) {
        std::unique_ptr<uint8_t[]> buffer = std::move(free_buffers_.back());
        free_buffers_.pop_back();
        return buffer;
      }
    }
    auto buffer = std::make_unique_for_overwrite<uint8_t[]>(static_cast<size_t>(chunk_bytes_));
    std::lock_guard lock(mutex_);
    ++buffers_;
    ReserveFor(free_buffers_, buffers_);  // so that giving it back never allocates
    return buffer;
  }

  // Destroys the owners of adopted bytes that evictions let go, outside the mutex: unmapping a
  // chunk takes tens of microseconds that no other thread should wait for. Called after Get and
  // Prefetch (Unpin, in a Ref's destructor, only queues them).
  void DestroyReleasedOwners() {
    std::vector<std::shared_ptr<const void>> doomed;
    {
      std::lock_guard lock(mutex_);
      if (released_owners_.empty()) return;
      doomed.reserve(released_owners_.size());
      for (auto& owner : released_owners_) doomed.push_back(std::move(owner));
      released_owners_.clear();  // keeps its capacity: queuing never allocates
    }
  }

  CacheStats Stats() const {
    std::lock_guard lock(mutex_);
    return stats_;
  }

  bool LockedHolds(int64_t chunk) const {
    std::lock_guard lock(mutex_);
    return index_.contains(chunk);
  }

  int64_t LockedHorizon() const {
    std::lock_guard lock(mutex_);
    return Horizon();
  }

  int64_t LockedResidentBytes() const {
    std::lock_guard lock(mutex_);
    return ResidentBytes();
  }

  const int64_t chunk_bytes_;
  const int64_t budget_bytes_;
  const EvictionPolicy policy_;
  const LoadFunction load_;

 private:
  // Everything below requires mutex_ held, except Load, which releases it while loading.

  // The ready, unpinned entry to evict, or nullptr when every entry is pinned or loading.
  Entry* PickVictim(int64_t now) const {
    const AccessPlan* plan = policy_ == EvictionPolicy::kBelady ? plan_.get() : nullptr;
    Entry* best = nullptr;
    int64_t best_next = 0;
    for (const auto& owned : resident_) {
      Entry* e = owned.get();
      if (e->state != Entry::State::kReady || e->pins > 0) continue;
      const int64_t next = plan != nullptr ? plan->NextUse(e->chunk, now) : 0;
      if (best == nullptr || next > best_next ||
          (next == best_next && e->last_use < best->last_use)) {
        best = e;
        best_next = next;
      }
    }
    return best;
  }

  // Evicts until one more chunk fits in the budget, or nothing unpinned is left (the overshoot).
  void MakeRoom(int64_t now) {
    while (ResidentBytes() + chunk_bytes_ > budget_bytes_) {
      Entry* victim = PickVictim(now);
      if (victim == nullptr) return;
      Evict(victim);
    }
  }

  void Evict(Entry* e) {
    ++stats_.evictions;
    RemoveFromIndex(e->chunk);
    Release(RemoveResident(e));
  }

  // The last pin of a ready entry gives back what pinned entries held beyond the budget; the
  // last pin of a failed entry releases it.
  void UnpinLocked(Entry* e) {
    if (--e->pins > 0) return;
    if (e->state == Entry::State::kFailed) {
      Release(RemoveResident(e));
      return;
    }
    while (ResidentBytes() > budget_bytes_) {
      Entry* victim = PickVictim(Horizon());
      if (victim == nullptr) return;
      Evict(victim);
    }
  }

  // A loading entry for `chunk`, pinned once for the loading thread, resident and indexed.
  // Allocations come before the entry is published: a bad_alloc leaves the cache consistent
  // (at worst a recycled buffer is freed).
  Entry* InsertLoading(int64_t chunk) {
    std::unique_ptr<Entry> owned;
    if (!free_entries_.empty()) {
      owned = std::move(free_entries_.back());
      free_entries_.pop_back();
    } else {
      ReserveFor(free_entries_, resident_.size() + 1);
      ReserveFor(released_owners_, resident_.size() + 1);
      owned = std::make_unique<Entry>();
    }
    ReserveFor(resident_, resident_.size() + 1);
    Entry* e = owned.get();
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
    e->state = Entry::State::kLoading;
    e->pins = 1;
    e->last_use = ++clock_;
    e->slot = resident_.size();
    resident_.push_back(std::move(owned));
    stats_.peak_resident_bytes =
        std::max(stats_.peak_resident_bytes, static_cast<uint64_t>(ResidentBytes()));
    return e;
  }

  // Runs the LoadFunction for a loading entry with mutex_ released, then publishes the result.
  // On failure the entry leaves the index at once (a later Get retries), stays resident until
  // its waiters have taken the error, and the error is rethrown here.
  void Load(Entry* e, std::unique_lock<std::mutex>& lock) {
    lock.unlock();
    LoadResult result;
    std::exception_ptr thrown;
    LoadError error;
    try {
      LoadTarget target(this, e);
      result = load_(e->chunk, target);
      if (!e->owner && !e->buffer) {
        throw Error(ErrorCode::kInternal, "chunk cache: the load of chunk " +
                                              std::to_string(e->chunk) + " delivered nothing");
      }
      if (!e->owner) e->data = {e->buffer.get(), static_cast<size_t>(chunk_bytes_)};
    } catch (const Error& err) {
      thrown = std::current_exception();
      error = LoadError{
          .is_error = true, .code = err.code(), .message = err.what(), .other = nullptr};
    } catch (...) {
      thrown = std::current_exception();
      error.other = thrown;
    }
    lock.lock();
    if (thrown) {
      ++stats_.failed_loads;
      RemoveFromIndex(e->chunk);
      e->state = Entry::State::kFailed;
      e->error = std::move(error);
      load_ended_.notify_all();
      UnpinLocked(e);
      lock.unlock();
      std::rethrow_exception(thrown);  // the loading thread gets the original
    }
    e->state = Entry::State::kReady;
    stats_.bytes_read += result.bytes_read;
    stats_.bytes_decoded += result.bytes_decoded;
    load_ended_.notify_all();
  }

  void RemoveFromIndex(int64_t chunk) {
    // Capacity for every node was reserved when it was created: this push never allocates.
    free_nodes_.push_back(index_.extract(chunk));
  }

  std::unique_ptr<Entry> RemoveResident(Entry* e) {
    const size_t slot = e->slot;
    std::unique_ptr<Entry> owned = std::move(resident_[slot]);
    if (slot + 1 != resident_.size()) {
      resident_[slot] = std::move(resident_.back());
      resident_[slot]->slot = slot;
    }
    resident_.pop_back();
    return owned;
  }

  // Keeps the entry for the next load, and its buffer while all buffers fit in the budget;
  // beyond that (after a pinned overshoot) the buffer is freed, so allocated memory obeys the
  // same bound as resident memory. Adopted bytes are let go. Never allocates.
  void Release(std::unique_ptr<Entry> owned) {
    owned->error = LoadError();
    if (owned->owner) released_owners_.push_back(std::move(owned->owner));
    owned->data = {};
    if (owned->buffer) {
      const auto buffers = static_cast<int64_t>(resident_.size() + free_buffers_.size() + 1);
      if (buffers * chunk_bytes_ <= budget_bytes_) {
        free_buffers_.push_back(std::move(owned->buffer));
      } else {
        owned->buffer.reset();
        --buffers_;
      }
    }
    free_entries_.push_back(std::move(owned));
  }

  mutable std::mutex mutex_;
  // State below is protected by mutex_.
  std::condition_variable load_ended_;  // an entry left kLoading
  std::shared_ptr<const AccessPlan> plan_;
  int64_t consumer_step_ = 0;  // the furthest step any Get asked for since SetPlan
  // The oldest step still being assembled (SetFirstPendingStep), -1 when never reported.
  // Several steps are in flight at once; measuring next use from the newest of them (as
  // consumer_step_ does) evicts chunks an older step in flight still needs: 51 chunk reads
  // instead of 37 per epoch on a 37-chunk file with chunks:8 and an 11-chunk cache.
  int64_t first_pending_ = -1;

  // The step Belady measures next use from when no Get names one.
  int64_t Horizon() const { return first_pending_ >= 0 ? first_pending_ : consumer_step_; }
  uint64_t clock_ = 0;
  // Loading, ready, and failed entries still pinned by waiters; their buffers are the
  // resident bytes. Indexed by Entry::slot.
  std::vector<std::unique_ptr<Entry>> resident_;
  Index index_;  // chunk -> its loading or ready entry
  std::vector<Index::node_type> free_nodes_;
  std::vector<std::unique_ptr<Entry>> free_entries_;  // without buffers
  std::vector<std::unique_ptr<uint8_t[]>> free_buffers_;
  // Owners let go by Release, destroyed by DestroyReleasedOwners; capacity for one per entry.
  std::vector<std::shared_ptr<const void>> released_owners_;
  size_t buffers_ = 0;  // allocated: in entries and in free_buffers_
  CacheStats stats_;
};

ChunkCache::ChunkCache(int64_t chunk_bytes, int64_t budget_bytes, EvictionPolicy policy,
                       LoadFunction load) {
  if (chunk_bytes < 1 || budget_bytes < 0 || !load) {
    throw Error(ErrorCode::kInvalidArgument,
                "ChunkCache: chunk_bytes is " + std::to_string(chunk_bytes) +
                    " and budget_bytes is " + std::to_string(budget_bytes) +
                    (load ? "" : ", and no load function was given") +
                    "; chunk_bytes must be >= 1, budget_bytes >= 0, and a load function set");
  }
  impl_ = std::make_unique<Impl>(chunk_bytes, budget_bytes, policy, std::move(load));
}

ChunkCache::~ChunkCache() = default;

void ChunkCache::SetPlan(std::shared_ptr<const AccessPlan> plan) {
  impl_->SetPlan(std::move(plan));
}

ChunkCache::Ref ChunkCache::Get(int64_t chunk, int64_t step) {
  return *Acquire(chunk, step, true);  // waiting, it always has the entry
}

std::optional<ChunkCache::Ref> ChunkCache::GetUnlessLoading(int64_t chunk, int64_t step) {
  return Acquire(chunk, step, false);
}

std::optional<ChunkCache::Ref> ChunkCache::Acquire(int64_t chunk, int64_t step, bool wait) {
  Entry* e = impl_->Get(chunk, step, wait);
  if (e == nullptr) return std::nullopt;
  Ref ref(impl_.get(), e, e->data);
  impl_->DestroyReleasedOwners();
  return ref;
}

std::span<uint8_t> ChunkCache::LoadTarget::Buffer() {
  if (!entry_->buffer) entry_->buffer = cache_->TakeBuffer();
  return {entry_->buffer.get(), static_cast<size_t>(cache_->chunk_bytes_)};
}

void ChunkCache::LoadTarget::Adopt(std::span<const uint8_t> bytes,
                                   std::shared_ptr<const void> owner) {
  if (bytes.size() != static_cast<size_t>(cache_->chunk_bytes_) || !owner) {
    throw Error(ErrorCode::kInternal,
                "chunk cache: adopting " + std::to_string(bytes.size()) +
                    " bytes for a chunk of " + std::to_string(cache_->chunk_bytes_) +
                    (owner ? "" : " without an owner"));
  }
  entry_->owner = std::move(owner);
  entry_->data = bytes;
}

bool ChunkCache::Prefetch(int64_t chunk, int64_t step) {
  const bool loaded = impl_->Prefetch(chunk, step);
  impl_->DestroyReleasedOwners();
  return loaded;
}

void ChunkCache::SetFirstPendingStep(int64_t step) { impl_->SetFirstPendingStep(step); }

void ChunkCache::Reserve(int64_t entries) { impl_->Reserve(entries); }

bool ChunkCache::Holds(int64_t chunk) const { return impl_->LockedHolds(chunk); }

int64_t ChunkCache::horizon() const { return impl_->LockedHorizon(); }

CacheStats ChunkCache::stats() const { return impl_->Stats(); }

int64_t ChunkCache::chunk_bytes() const { return impl_->chunk_bytes_; }

int64_t ChunkCache::budget_bytes() const { return impl_->budget_bytes_; }

int64_t ChunkCache::resident_bytes() const { return impl_->LockedResidentBytes(); }

ChunkCache::Ref::Ref(Ref&& other) noexcept
    : cache_(std::exchange(other.cache_, nullptr)),
      entry_(std::exchange(other.entry_, nullptr)),
      data_(std::exchange(other.data_, {})) {}

ChunkCache::Ref& ChunkCache::Ref::operator=(Ref&& other) noexcept {
  if (this != &other) {
    Reset();
    cache_ = std::exchange(other.cache_, nullptr);
    entry_ = std::exchange(other.entry_, nullptr);
    data_ = std::exchange(other.data_, {});
  }
  return *this;
}

ChunkCache::Ref::~Ref() { Reset(); }

void ChunkCache::Ref::Reset() {
  if (entry_ == nullptr) return;
  cache_->Unpin(std::exchange(entry_, nullptr));
  cache_ = nullptr;
  data_ = {};
}

}  // namespace h5feed::cache
