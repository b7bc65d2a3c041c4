#include "cache/chunk_cache.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cache/cache_entry.h"
#include "cache/entry_table.h"
#include "cache/eviction.h"
#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::cache {

struct ChunkCache::Impl {
  Impl(int64_t chunk_bytes, int64_t budget_bytes, EvictionPolicy policy, LoadFunction load,
       int64_t companion_bytes)
      : chunk_bytes_(chunk_bytes),
        companion_bytes_(companion_bytes),
        entry_bytes_(chunk_bytes + companion_bytes),
        budget_bytes_(budget_bytes),
        policy_(policy),
        load_(std::move(load)),
        entries_(chunk_bytes, chunk_bytes + companion_bytes, budget_bytes) {}

  // The chunk's entry, ready and pinned once for the caller; nullptr only when `wait` is false
  // and another task is loading the chunk.
  Entry* Get(int64_t chunk, int64_t step, bool wait) {
    std::unique_lock lock(mutex_);
    consumer_step_ = std::max(consumer_step_, step);
    if (Entry* e = entries_.Find(chunk)) {
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
    if (entries_.Find(chunk) != nullptr || step < Horizon()) return false;
    // Decided and acted on under one lock: room is made only from victims needed after `step`.
    while (entries_.resident_bytes() + entry_bytes_ > budget_bytes_) {
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
    entries_.Reserve(entries);
  }

  // A free buffer, or a new one (allocated without the mutex held).
  std::unique_ptr<uint8_t[]> TakeBuffer() {
    {
      std::lock_guard lock(mutex_);
      if (std::unique_ptr<uint8_t[]> buffer = entries_.TakeFreeBuffer()) return buffer;
    }
    auto buffer = std::make_unique_for_overwrite<uint8_t[]>(static_cast<size_t>(chunk_bytes_));
    std::lock_guard lock(mutex_);
    entries_.BufferAllocated();
    return buffer;
  }

  // Destroys the owners of adopted bytes that evictions let go, outside the mutex: unmapping a
  // chunk takes tens of microseconds that no other thread should wait for. Called after Get and
  // Prefetch (Unpin, in a Ref's destructor, only queues them).
  void DestroyReleasedOwners() {
    std::vector<std::shared_ptr<const void>> doomed;
    std::lock_guard lock(mutex_);
    entries_.TakeReleased(doomed);
    // `doomed` goes after the lock: declared first, destroyed last.
  }

  CacheStats Stats() const {
    std::lock_guard lock(mutex_);
    return stats_;
  }

  bool LockedHolds(int64_t chunk) const {
    std::lock_guard lock(mutex_);
    return entries_.Find(chunk) != nullptr;
  }

  int64_t LockedHorizon() const {
    std::lock_guard lock(mutex_);
    return Horizon();
  }

  int64_t LockedResidentBytes() const {
    std::lock_guard lock(mutex_);
    return entries_.resident_bytes();
  }

  const int64_t chunk_bytes_;
  const int64_t companion_bytes_;
  const int64_t entry_bytes_;  // what an entry counts against the budget
  const int64_t budget_bytes_;
  const EvictionPolicy policy_;
  const LoadFunction load_;

 private:
  // Everything below requires mutex_ held, except Load, which releases it while loading.

  Entry* PickVictim(int64_t now) const {
    return cache::PickVictim(entries_.resident(),
                             policy_ == EvictionPolicy::kBelady ? plan_.get() : nullptr, now);
  }

  // Evicts until one more chunk fits in the budget, or nothing unpinned is left (the overshoot).
  void MakeRoom(int64_t now) {
    while (entries_.resident_bytes() + entry_bytes_ > budget_bytes_) {
      Entry* victim = PickVictim(now);
      if (victim == nullptr) return;
      Evict(victim);
    }
  }

  void Evict(Entry* e) {
    ++stats_.evictions;
    entries_.Unindex(e->chunk);
    entries_.Remove(e);
  }

  // The last pin of a ready entry gives back what pinned entries held beyond the budget; the
  // last pin of a failed entry releases it.
  void UnpinLocked(Entry* e) {
    if (--e->pins > 0) return;
    if (e->state == Entry::State::kFailed) {
      entries_.Remove(e);
      return;
    }
    while (entries_.resident_bytes() > budget_bytes_) {
      Entry* victim = PickVictim(Horizon());
      if (victim == nullptr) return;
      Evict(victim);
    }
  }

  Entry* InsertLoading(int64_t chunk) {
    Entry* e = entries_.InsertLoading(chunk, ++clock_);
    stats_.peak_resident_bytes =
        std::max(stats_.peak_resident_bytes, static_cast<uint64_t>(entries_.resident_bytes()));
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
        throw MakeError(ErrorCode::kInternal, "chunk cache: the load of chunk {} delivered nothing",
                        e->chunk);
      }
      if (companion_bytes_ > 0 && !e->companion_owner) {
        throw MakeError(ErrorCode::kInternal,
                        "chunk cache: the load of chunk {} attached no companion", e->chunk);
      }
      if (!e->owner) e->data = {e->buffer.get(), static_cast<size_t>(chunk_bytes_)};
    } catch (const Error& err) {
      thrown = std::current_exception();
      error =
          LoadError{.is_error = true, .code = err.code(), .message = err.what(), .other = nullptr};
    } catch (...) {
      thrown = std::current_exception();
      error.other = thrown;
    }
    lock.lock();
    if (thrown) {
      ++stats_.failed_loads;
      entries_.Unindex(e->chunk);
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
  EntryTable entries_;
  CacheStats stats_;
};

ChunkCache::ChunkCache(int64_t chunk_bytes, int64_t budget_bytes, EvictionPolicy policy,
                       LoadFunction load, int64_t companion_bytes) {
  if (chunk_bytes < 1 || budget_bytes < 0 || companion_bytes < 0 || !load) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "ChunkCache: chunk_bytes is {}, companion_bytes {} and budget_bytes {}{}; "
                    "chunk_bytes must be >= 1, companion_bytes and budget_bytes >= 0, and a load "
                    "function set",
                    chunk_bytes, companion_bytes, budget_bytes,
                    (load ? "" : ", and no load function was given"));
  }
  impl_ =
      std::make_unique<Impl>(chunk_bytes, budget_bytes, policy, std::move(load), companion_bytes);
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
  Ref ref(impl_.get(), e, e->data, e->companion);
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
    throw MakeError(ErrorCode::kInternal, "chunk cache: adopting {} bytes for a chunk of {}{}",
                    bytes.size(), cache_->chunk_bytes_, (owner ? "" : " without an owner"));
  }
  entry_->owner = std::move(owner);
  entry_->data = bytes;
}

void ChunkCache::LoadTarget::Attach(std::span<const uint8_t> bytes,
                                    std::shared_ptr<const void> owner) {
  if (bytes.size() != static_cast<size_t>(cache_->companion_bytes_) || !owner) {
    throw MakeError(ErrorCode::kInternal,
                    "chunk cache: attaching {} bytes to a chunk whose companion is {}{}",
                    bytes.size(), cache_->companion_bytes_, (owner ? "" : " without an owner"));
  }
  entry_->companion_owner = std::move(owner);
  entry_->companion = bytes;
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

int64_t ChunkCache::companion_bytes() const { return impl_->companion_bytes_; }

int64_t ChunkCache::budget_bytes() const { return impl_->budget_bytes_; }

int64_t ChunkCache::resident_bytes() const { return impl_->LockedResidentBytes(); }

ChunkCache::Ref::Ref(Ref&& other) noexcept
    : cache_(std::exchange(other.cache_, nullptr)),
      entry_(std::exchange(other.entry_, nullptr)),
      data_(std::exchange(other.data_, {})),
      companion_(std::exchange(other.companion_, {})) {}

ChunkCache::Ref& ChunkCache::Ref::operator=(Ref&& other) noexcept {
  if (this != &other) {
    Reset();
    cache_ = std::exchange(other.cache_, nullptr);
    entry_ = std::exchange(other.entry_, nullptr);
    data_ = std::exchange(other.data_, {});
    companion_ = std::exchange(other.companion_, {});
  }
  return *this;
}

ChunkCache::Ref::~Ref() { Reset(); }

void ChunkCache::Ref::Reset() {
  if (entry_ == nullptr) return;
  cache_->Unpin(std::exchange(entry_, nullptr));
  cache_ = nullptr;
  data_ = {};
  companion_ = {};
}

}  // namespace h5feed::cache
