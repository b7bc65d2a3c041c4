#pragma once
// The one walker of a run's access plan: loads the chunks of the steps ahead into the cache
// while the current ones are gathered, and tells the chunk source which chunks come after
// those, so that a medium whose reads wait (a network) has their bytes on their way. The batch
// assembler's prefetching, one object per run, with two budgets: the cache's (decoded chunks,
// below) and the source's (stored bytes, which the source sizes to its medium).
//
// When the assembler takes step s (StepTaken), the chunks of steps s + 1, s + 2, ... are
// requested, each by a TBB task calling ChunkCache::Prefetch: at least `steps` steps ahead, and
// further while the chunks requested for the steps ahead number at most `chunks`. Past the
// epoch's last step come the steps the access plan carries on with (the next epoch's first
// ones), so its start loads while this epoch ends. A chunk that the step before reads is not
// requested (that step, or its prefetch, loads it). The cache refuses a prefetch that would
// evict a chunk needed sooner, so a long horizon never costs a read.
//
// Requests are held until the run's first step has its rows (Release): at the start nothing is
// loaded, and prefetch tasks for later steps would take the threads that step needs. A request
// whose step has been taken when its task runs is dropped (that step's own Get loads the chunk;
// with one worker, spawned tasks run late, LIFO, and would read back chunks already used and
// evicted), as is every request once Cancel is called. A failed load is dropped too: the Get of
// the step that needs the chunk retries it and reports the error in order (chunk_cache.h).
//
// Bytes ahead (source/read_ahead.h, for a source whose medium reads ahead): from the oldest step
// still being assembled (ChunkCache::horizon), each chunk of the steps ahead that the cache
// does not hold, in the order the steps need them, until the source says it holds enough
// (kFull); again at every step taken and every chunk a prefetch task loaded (a load takes its
// bytes, which makes room). Bytes fetched for steps the consumer has passed are
// dropped (their chunks were found in the cache after all), and all of the last run's when a
// run starts. Unlike chunk requests these are not held until Release: fetching bytes takes no
// worker thread.
//
// Thread-safety: StepTaken from one thread at a time (the assembler takes steps under a mutex);
// Release, Cancel and Wait from any thread. Tasks run in the arena StepTaken and Release are
// called in. Borrows the plan, the cache and the arena, which must outlive it; the destructor
// cancels what is left and waits for it.

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <utility>
#include <vector>

#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "cache/access_plan.h"
#include "cache/chunk_cache.h"
#include "source/read_ahead.h"

namespace h5feed::pipeline {

class ChunkPrefetcher {
 public:
  struct Limits {
    int64_t steps = 2;   // steps ahead always requested; 0: no prefetching
    int64_t chunks = 0;  // chunks ahead the horizon may grow to beyond `steps`
  };

  // A run that starts at loaded step `first_step` of `plan`'s epoch. `read_ahead`: the cache's
  // chunk source's, told of the chunks ahead (null: none is).
  ChunkPrefetcher(const cache::AccessPlan& plan, cache::ChunkCache& cache, tbb::task_arena& arena,
                  int64_t first_step, Limits limits, source::ReadAhead* read_ahead = nullptr);
  ~ChunkPrefetcher();
  ChunkPrefetcher(const ChunkPrefetcher&) = delete;
  ChunkPrefetcher& operator=(const ChunkPrefetcher&) = delete;

  // Step `step` is taken (steps come in ascending order): requests the chunks of the steps
  // ahead of it that are not yet requested.
  void StepTaken(int64_t step);
  // The run's first step has its rows: requests held until now start, the soonest needed
  // first. Later calls do nothing.
  void Release();
  // No request starts from now on (tasks running finish their load).
  void Cancel();
  // Waits for every task spawned so far, helping in the arena.
  void Wait();

 private:
  void Spawn(int64_t chunk, int64_t step);
  void Run(int64_t chunk, int64_t step);
  // The source's budget: from the constructor, StepTaken and the prefetch tasks; one caller
  // walks at a time, the others return at once (the walker fetches for them too).
  void FetchBytesAhead();

  struct Fetch {
    int64_t step;
    int64_t chunk;
  };

  const cache::AccessPlan& plan_;
  cache::ChunkCache& cache_;
  tbb::task_arena& arena_;
  const Limits limits_;
  std::atomic<bool> cancelled_{false};
  std::atomic<int64_t> next_step_;  // the step after the last one taken

  // StepTaken's state (one caller at a time, on any worker thread).
  std::atomic<int64_t> requested_through_;  // the last step whose chunks were requested
  // Chunks requested for each step ahead, oldest first, and their sum.
  std::deque<std::pair<int64_t, int64_t>> requested_steps_;
  int64_t chunks_ahead_ = 0;
  source::ReadAhead* const read_ahead_;  // null: no bytes ahead
  std::mutex fetch_mutex_;
  // State below is protected by fetch_mutex_.
  int64_t fetch_cursor_;              // the first step with chunks not yet fetched ahead
  std::vector<int64_t> fetched_for_;  // per chunk: the step it was last fetched for, or -1
  std::deque<Fetch> fetches_;         // live fetches, oldest step first

  std::mutex held_mutex_;
  bool holding_ = true;                            // guarded by held_mutex_
  std::vector<std::pair<int64_t, int64_t>> held_;  // (chunk, step), guarded by held_mutex_

  tbb::task_group_context context_{tbb::task_group_context::isolated};
  tbb::task_group tasks_{context_};
};

}  // namespace h5feed::pipeline
