// RemoteReadahead (remote_readahead.h).
#include "loader/remote_readahead.h"

#include <algorithm>

#include "h5feed/remote_options.h"

namespace h5feed::loader {

using Prefetch = io::RandomAccessFile::Prefetch;

RemoteReadahead::RemoteReadahead(const index::DatasetIndex& dataset,
                                 const io::RandomAccessFile& file, const cache::ChunkCache& cache,
                                 uint64_t memory_bytes)
    : dataset_(dataset),
      file_(file),
      cache_(cache),
      hinted_for_(static_cast<size_t>(dataset.chunk_count()), -1) {
  file_.LimitPrefetch(memory_bytes);
}

void RemoteReadahead::Start(std::shared_ptr<const cache::AccessPlan> plan) {
  std::lock_guard lock(mutex_);
  file_.DropAllPrefetches();
  plan_ = std::move(plan);
  cursor_ = 0;
  std::fill(hinted_for_.begin(), hinted_for_.end(), -1);
  hints_.clear();
  Walk();
}

void RemoteReadahead::Advance() {
  std::unique_lock lock(mutex_, std::try_to_lock);
  if (lock.owns_lock()) Walk();
}

void RemoteReadahead::Walk() {
  if (!plan_) return;
  const int64_t horizon = cache_.horizon();
  // Hints for steps already passed: their chunks were loaded (and took the bytes) or found in
  // the cache (and the bytes wait for nothing).
  while (!hints_.empty() && hints_.front().step < horizon) {
    const Hint hint = hints_.front();
    hints_.pop_front();
    if (hinted_for_[static_cast<size_t>(hint.chunk)] != hint.step) continue;
    const index::ChunkLocation& at = dataset_.chunks[static_cast<size_t>(hint.chunk)];
    file_.DropPrefetch(at.address, at.stored_bytes);
  }
  cursor_ = std::max(cursor_, horizon);
  for (; cursor_ < plan_->steps(); ++cursor_) {
    for (const int64_t chunk : plan_->chunks_of(cursor_)) {
      int64_t& hinted = hinted_for_[static_cast<size_t>(chunk)];
      if (hinted >= horizon || cache_.Holds(chunk)) continue;
      const index::ChunkLocation& at = dataset_.chunks[static_cast<size_t>(chunk)];
      const Prefetch result = file_.PrefetchAt(at.address, at.stored_bytes);
      if (result == Prefetch::kFull) return;  // this step again, next time
      if (result == Prefetch::kIgnored) continue;
      hinted = cursor_;
      hints_.push_back({cursor_, chunk});
    }
  }
}

std::unique_ptr<RemoteReadahead> MakeRemoteReadahead(const index::DatasetIndex& dataset,
                                                     const io::RandomAccessFile& file,
                                                     const cache::ChunkCache& cache,
                                                     int64_t cache_bytes) {
  if (!IsRemoteLocation(dataset.location) || !dataset.direct) return nullptr;
  return std::make_unique<RemoteReadahead>(
      dataset, file, cache, static_cast<uint64_t>(std::max<int64_t>(cache_bytes, 0) / 4));
}

}  // namespace h5feed::loader
