#pragma once
// Assembles the batches of one epoch, from a given step to its end, into host slots, on its
// own thread, and hands them over in order. One object is one run: the loader makes a new one
// for every SetEpoch / Restore; destroying it cancels the run and joins its thread.
//
// The run's own thread works inside the borrowed task arena (its size is the loader's
// `threads`), and memory is bounded by the slot pool by construction:
//   - Steps are taken in plan order, each once its slot(s) are leased, by the thread about to
//     assemble it, and the ChunkPrefetcher is told, which requests the chunks of the steps
//     ahead (separate tasks: loading is never serialised behind taking steps). A step, as it
//     starts, leaves a task that takes the next step if its slots are free then, for another
//     thread (or this one next); as it ends, another, for a slot the trainer freed meanwhile.
//     Such a task never waits for a slot. The run's thread takes the first step, waits for the
//     trainer to free a slot only once no step is in flight, and otherwise works on the
//     arena's tasks. No task ever waits for what only the trainer frees: TBB's workers are
//     shared by every arena in the process, and a worker waiting in one loader for its slot
//     would leave another loader's steps without a thread while the trainer waits for them
//     (two loaders read in turns, `zip(a, b)`).
//   - Each step is a task: gather its rows from the cache, in parallel over its chunks;
//     normalize into the slot's float region if asked; make the echo copies; make each
//     batch's extras (AssemblerOptions::make_extras) if asked. Runs inside
//     this_task_arena::isolate, so a thread waiting in a step's nested loops works only on
//     that step and is not held up by a later one.
//   - A step done is delivered in order, by the thread that finished it or the one finishing
//     the step before it: its batch(es) go to the output queue.
// An error of a step is delivered in its place: every batch before the failing step arrives
// first, then the error (with the epoch and step added to its message), and the run stops
// taking steps. The delivery ends the run with that error in the output queue's RunEnd
// (run_end.h), the one record of how the run ended; the end of the epoch is recorded there
// once every step is delivered, unless an error ended the run first.
//
// Thread-safety: Next() and the destructor are called from one thread (the consumer's).
// Borrows everything in AssemblerResources, which must outlive the assembler; batches it
// delivered hold slot leases and may outlive it.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stop_token>
#include <thread>
#include <vector>

#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "cache/chunk_cache.h"
#include "memory/slot_layout.h"
#include "memory/slot_pool.h"
#include "pipeline/batch_gatherer.h"
#include "pipeline/batch_queue.h"
#include "pipeline/chunk_prefetcher.h"
#include "pipeline/epoch_plan.h"
#include "source/run_control.h"
#include "transform/output_views.h"

namespace h5feed::pipeline {

struct AssemblerResources {
  cache::ChunkCache* cache = nullptr;
  memory::SlotPool* pool = nullptr;  // slots of at least layout->bytes()
  const memory::SlotLayout* layout = nullptr;
  BatchGatherer* gatherer = nullptr;
  tbb::task_arena* arena = nullptr;
  // Where the cache's chunks come from: its loads end when the run stops, and its read-ahead
  // is told which chunks come next (ChunkPrefetcher); null: none.
  source::RunControl* source = nullptr;
};

struct AssemblerOptions {
  // Echo copies per loaded step (echo.h). Each step leases `echo` slots, so the pool must
  // hold at least that many.
  int echo = 1;
  uint64_t seed = 0;  // of the echo permutations
  // Steps ahead of the one being taken whose chunks are prefetched into the cache: at least
  // prefetch_steps, and further while the chunks to prefetch number at most prefetch_chunks
  // (ChunkPrefetcher::Limits). The end of the epoch is delivered once those prefetches are
  // done. A chunks:W window switch needs W new chunks at once; prefetching them while the
  // previous window's batches are still being copied keeps every thread busy, where a lookahead
  // of a fixed few steps left one idle (docs/reader.md, "Prefetching and window switches").
  int64_t prefetch_steps = 2;
  int64_t prefetch_chunks = 0;
  // Set: normalize every view into the slot's output region (copy e of an echo takes its own
  // augmentation draws, so with random augmentation or several views copies are normalized
  // afresh rather than copied).
  std::optional<transform::OutputViews> output;
  // > 0 (echo must then be 1): the GPU stage echoes on the device; write that many row orders
  // (EchoPermutation of copies 0 .. device_echo - 1) into each slot's orders region
  // (layout->row_orders() >= device_echo), and deliver only the loaded batch.
  int device_echo = 0;
  // Set: host work each delivered batch needs beyond its slot, made in the step's task once the
  // batch's rows (`indices`: its dataset rows, the echo copy's permutation applied) and copy are
  // known, and handed out with it (AssembledBatch::extras), so that the consumer's thread only
  // takes it: the loader's masks and boxes (loader/geometric_fields.h), which only the loader knows
  // the type of. Called on the arena's threads, concurrently; may run tbb::parallel_for, and
  // may throw as the step may (the error is delivered in the step's place).
  std::function<std::shared_ptr<const void>(std::span<const int64_t> indices, int64_t epoch,
                                            int copy)>
      make_extras;
};

class BatchAssembler {
 public:
  // Starts delivering `plan` from delivered step `first_step` (echoes counted; 0 <= first_step
  // <= plan->steps() * echo). Throws Error(kInvalidArgument) for a step out of range or a pool
  // with fewer than `echo` slots.
  BatchAssembler(std::shared_ptr<const EpochPlan> plan, int64_t first_step,
                 const AssemblerResources& resources, AssemblerOptions options);
  ~BatchAssembler();
  BatchAssembler(const BatchAssembler&) = delete;
  BatchAssembler& operator=(const BatchAssembler&) = delete;

  // The next event, waiting for it: a batch, then the run's end, EndOfEpoch or the error that
  // stopped it; after that the same end again, at once, until the run is destroyed.
  PipelineEvent Next();
  // Whether Next would return at once, waiting up to `timeout` for it to.
  bool WaitReady(std::chrono::milliseconds timeout);
  // Whether Next returns the run's end at once (every batch was handed out).
  bool ended() const;

  int64_t delivered_steps() const { return plan_->steps() * options_.echo; }

 private:
  struct Job;

  void Run() noexcept;
  void AssembleSteps();
  Job* Take(bool wait, bool& end);
  void TryStep();
  void RunStep(Job& step);
  std::unique_ptr<Job> TakeStep(bool wait, bool& end);
  void Assemble(Job& job);
  void Finish(Job& job);
  void Deliver(Job& job);

  const std::shared_ptr<const EpochPlan> plan_;
  const AssemblerResources resources_;
  const AssemblerOptions options_;
  const int64_t first_loaded_step_;
  const int first_copy_;

  std::stop_source stop_;
  ChunkPrefetcher prefetcher_;
  BatchQueue queue_;  // the batches, then the run's end (its one record)

  tbb::task_group steps_;  // the steps in flight, one task each

  // Taking steps, by the run's thread or a step's task (guarded by take_mutex_): the next step
  // to take, and the slots leased for it so far.
  std::mutex take_mutex_;
  int64_t next_step_;
  std::vector<memory::SlotLease> next_leases_;
  // A step failed: take no more steps. Not the run's end: the delivery decides which error
  // ends the run, in step order (a later step may fail first).
  std::atomic<bool> failed_{false};

  std::mutex delivery_mutex_;
  std::deque<std::unique_ptr<Job>> undelivered_;  // guarded by delivery_mutex_: in step order

  std::thread thread_;  // last: started when everything above exists
};

}  // namespace h5feed::pipeline
