#include "pipeline/chunk_prefetcher.h"

#include <algorithm>
#include <span>

namespace h5feed::pipeline {

ChunkPrefetcher::ChunkPrefetcher(const cache::AccessPlan& plan, cache::ChunkCache& cache,
                                 tbb::task_arena& arena, int64_t first_step, Limits limits,
                                 source::ReadAhead* read_ahead)
    : plan_(plan),
      cache_(cache),
      arena_(arena),
      limits_(limits),
      next_step_(first_step),
      requested_through_(first_step),
      read_ahead_(read_ahead),
      fetch_cursor_(first_step) {
  if (!read_ahead_) return;
  read_ahead_->DropAll();  // the last run's, for steps this one may never take
  fetched_for_.assign(static_cast<size_t>(plan_.chunk_count()), -1);
  FetchBytesAhead();
}

ChunkPrefetcher::~ChunkPrefetcher() {
  Cancel();
  Wait();
}

void ChunkPrefetcher::StepTaken(int64_t step) {
  next_step_.store(step + 1, std::memory_order_relaxed);
  if (read_ahead_) FetchBytesAhead();
  if (limits_.steps <= 0) return;
  while (!requested_steps_.empty() && requested_steps_.front().first <= step) {
    chunks_ahead_ -= requested_steps_.front().second;
    requested_steps_.pop_front();
  }
  int64_t t = std::max(requested_through_.load(std::memory_order_relaxed), step) + 1;
  for (; t < plan_.steps(); ++t) {
    if (t > step + limits_.steps && chunks_ahead_ >= limits_.chunks) break;
    std::span<const int64_t> before = plan_.chunks_of(t - 1);
    int64_t requested = 0;
    for (int64_t chunk : plan_.chunks_of(t)) {
      if (std::binary_search(before.begin(), before.end(), chunk)) continue;
      ++requested;
      Spawn(chunk, t);
    }
    requested_steps_.emplace_back(t, requested);
    chunks_ahead_ += requested;
  }
  requested_through_.store(std::max(t - 1, requested_through_.load(std::memory_order_relaxed)),
                           std::memory_order_relaxed);
  // The next epoch's chunks were refused while this epoch still needed the room (a long
  // horizon reaches them early). Once its last step is taken, only the steps in flight hold
  // chunks: ask again for those not loaded yet (the cache declines the others at once).
  if (step == plan_.epoch_steps() - 1) {
    for (int64_t next = plan_.epoch_steps(); next < plan_.steps(); ++next) {
      for (int64_t chunk : plan_.chunks_of(next)) Spawn(chunk, next);
    }
  }
}

void ChunkPrefetcher::FetchBytesAhead() {
  std::unique_lock lock(fetch_mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return;
  const int64_t horizon = cache_.horizon();
  while (!fetches_.empty() && fetches_.front().step < horizon) {
    const Fetch passed = fetches_.front();
    fetches_.pop_front();
    if (fetched_for_[static_cast<size_t>(passed.chunk)] == passed.step) {
      read_ahead_->Drop(passed.chunk);
    }
  }
  fetch_cursor_ = std::max(fetch_cursor_, horizon);
  for (; fetch_cursor_ < plan_.steps(); ++fetch_cursor_) {
    for (const int64_t chunk : plan_.chunks_of(fetch_cursor_)) {
      int64_t& fetched = fetched_for_[static_cast<size_t>(chunk)];
      if (fetched >= horizon || cache_.Holds(chunk)) continue;
      const io::Ahead result = read_ahead_->Fetch(chunk);
      if (result == io::Ahead::kFull) return;  // this step again, next time
      if (result == io::Ahead::kNotNeeded) continue;
      fetched = fetch_cursor_;
      fetches_.push_back({fetch_cursor_, chunk});
    }
  }
}

void ChunkPrefetcher::Spawn(int64_t chunk, int64_t step) {
  {
    std::lock_guard lock(held_mutex_);
    if (holding_) {
      held_.emplace_back(chunk, step);
      return;
    }
  }
  tasks_.run([this, chunk, step] { Run(chunk, step); });
}

void ChunkPrefetcher::Run(int64_t chunk, int64_t step) {
  if (cancelled_.load() || next_step_.load(std::memory_order_relaxed) > step) return;
  try {
    cache_.Prefetch(chunk, step);
  } catch (...) {
    // Not lost: the Get of the step that needs the chunk loads it again and reports.
  }
  if (read_ahead_) FetchBytesAhead();
}

void ChunkPrefetcher::Release() {
  std::vector<std::pair<int64_t, int64_t>> held;
  {
    std::lock_guard lock(held_mutex_);
    if (!holding_) return;
    holding_ = false;
    held.swap(held_);
  }
  // Spawned latest first: a thread runs its own spawned tasks newest first, so the soonest
  // needed chunk is then the first it loads.
  for (auto it = held.rbegin(); it != held.rend(); ++it) {
    tasks_.run([this, chunk = it->first, step = it->second] { Run(chunk, step); });
  }
}

void ChunkPrefetcher::Cancel() {
  cancelled_.store(true);
  context_.cancel_group_execution();
}

void ChunkPrefetcher::Wait() {
  try {
    arena_.execute([&] { tasks_.wait(); });
  } catch (...) {
    // Tasks swallow their errors; a wait only throws when cancelled, i.e. stopping.
  }
}

}  // namespace h5feed::pipeline
