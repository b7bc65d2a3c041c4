#pragma once
// The Loader's read-ahead for a remote file: walks the access plan from the oldest step still
// being assembled, in the order steps need their chunks, and hints each chunk the cache does
// not hold to the file (RandomAccessFile::PrefetchAt) until the file holds what keeps its link
// busy (bandwidth x round trip, link_estimator.h). A worker that then loads the chunk finds
// its bytes here or on their way, instead of waiting a round trip: the cache's own prefetch
// stays bounded by its budget, and the bytes in flight by the network's needs.
//
// Hints for steps the consumer has passed are dropped (their chunks were found in the cache),
// and every hint when a new run starts.
//
// Thread-safety: Advance may be called from many threads at once (one walks, the others
// return at once: the walker hints for them too); Start from the trainer's thread, between
// runs. Borrows the index, the file and the cache, which must outlive it.

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "cache/access_plan.h"
#include "cache/chunk_cache.h"
#include "index/dataset_index.h"
#include "io/random_access_file.h"

namespace h5feed::loader {

class RemoteReadahead {
 public:
  // `memory_bytes`: the most the file's prefetched bytes may hold (RandomAccessFile::
  // LimitPrefetch).
  RemoteReadahead(const index::DatasetIndex& dataset, const io::RandomAccessFile& file,
                  const cache::ChunkCache& cache, uint64_t memory_bytes);

  // A new run reads `plan`: what was hinted for the last one is dropped, and hints go out.
  void Start(std::shared_ptr<const cache::AccessPlan> plan);
  // Hints more, as far as the file takes them.
  void Advance();

 private:
  struct Hint {
    int64_t step;
    int64_t chunk;
  };
  void Walk();  // under mutex_

  const index::DatasetIndex& dataset_;
  const io::RandomAccessFile& file_;
  const cache::ChunkCache& cache_;

  std::mutex mutex_;
  // State below is protected by mutex_.
  std::shared_ptr<const cache::AccessPlan> plan_;
  int64_t cursor_ = 0;               // the first step with chunks not hinted yet
  std::vector<int64_t> hinted_for_;  // per chunk: the step it was last hinted for, or -1
  std::deque<Hint> hints_;           // live hints, oldest step first
};

// The read-ahead of a Loader on `dataset`: for a remote file read at stored addresses (an
// h5feed file, or a contiguous one), one whose prefetched bytes take at most a quarter of
// `cache_bytes` more memory; nullptr otherwise (a local file, or chunks read through HDF5).
std::unique_ptr<RemoteReadahead> MakeRemoteReadahead(const index::DatasetIndex& dataset,
                                                     const io::RandomAccessFile& file,
                                                     const cache::ChunkCache& cache,
                                                     int64_t cache_bytes);

}  // namespace h5feed::loader
