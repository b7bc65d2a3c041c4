#pragma once
// What a public h5feed::Loader holds: the modules the facade wires together (the file's index,
// the chunk source, the cache, the slots, the gatherer, the GPU feed) and the trainer's
// position, and the runs of the pipeline it starts and stops. loader.cc is the facade over it;
// loader_impl.cc wires it and runs it.

#include <tbb/task_arena.h>

#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "cache/chunk_cache.h"
#include "h5feed/loader.h"
#include "index/dataset_index.h"
#include "loader/batch_fields.h"
#include "loader/batch_impl.h"
#include "loader/cache_budget.h"
#include "loader/delivery_plan.h"
#include "loader/device_feed.h"
#include "loader/epoch_orders.h"
#include "loader/held_slots.h"
#include "loader/open_loader.h"
#include "loader/options_check.h"
#include "loader/reading_plan.h"
#include "loader/state_fingerprint.h"
#include "loader/streamed_fields.h"
#include "loader/view_sizes.h"
#include "memory/slot_layout.h"
#include "memory/slot_pool.h"
#include "pipeline/batch_assembler.h"
#include "pipeline/batch_gatherer.h"
#include "sampler/epoch_order.h"
#include "sampler/epoch_steps.h"

namespace h5feed {

// Thread-safety: used from the trainer's thread only (Loader's contract); the assembler's
// thread and workers touch only what they borrow through AssemblerResources.
// Members are declared in wiring order and destroyed in reverse: the run (assembler_) goes
// first, before anything it borrows.
struct Loader::Impl {
  // Opens `path` and wires the modules (each member in turn, in declaration order); checks
  // the options against the file before any slot or cache memory is committed.
  Impl(const std::string& path, const LoaderOptions& loader_options,
       const loader::ChunkFileOpener& open_chunk_file);
  ~Impl();

  // Stops the current run, if any: its loads waiting on a network end at once (its stop
  // reaches the sources: StreamedFields::StopLoadsOn; the run's errors go nowhere), and its
  // tasks are joined.
  void StopRun() { assembler.reset(); }

  // Stops the current run (if any) and starts one at (epoch, next_step).
  void StartRun();

  // Host and device batches alike: the run's next event, waited for; with the GPU stage the
  // feed makes device batches of the assembler's host batches on the way.
  std::optional<Batch> Next();
  // The host path's wait for the run's next event, in slices: throws (HeldSlots) rather than
  // wait on while the trainer's batches hold the slots the next step needs.
  void AwaitHostEvent();
  bool WaitReady(std::chrono::milliseconds timeout);

  // Runs `wait` (a wait for the run), counting its time in stats().wait_seconds.
  template <typename Wait>
  auto Waited(Wait&& wait);

  // A batch of the run's event, or nullptr at its end; its error is thrown. The run keeps its
  // end (pipeline/run_end.h): every later Next gets it again, until SetEpoch / Restore.
  template <typename Delivered>
  std::shared_ptr<Batch::Impl> BatchOf(
      std::variant<Delivered, pipeline::EndOfEpoch, std::exception_ptr> event);

  // The GPU path's next event. The GPU stage failing (Error(kCuda): a device fault, which
  // every later CUDA call meets again) ends the run there: its error, naming the step the
  // trainer asked for, is the run's end from then on, without asking the feed again (whose
  // host slots the failed device may never give back: the pipeline would wait for them).
  loader::DeviceEvent DeviceNext();

  const index::DatasetIndex dataset;
  const loader::ReadingPlan
      reading;                   // copies of the stored rows, or crops made as they are gathered
  const LoaderOptions& options;  // reading's copy of the user's
  const std::vector<FieldSpec> asked_fields;  // LoaderOptions::fields, checked against the file
  const std::unique_ptr<source::ChunkSource> source;
  loader::StreamedFields streamed;  // those read with the image chunks, and the run's control
  cache::ChunkCache cache;
  const sampler::SampleGeometry geometry;  // which rows each chunk holds
  const int64_t samples_per_rank;
  const int64_t batch_capacity;              // rows a slot holds (BatchCapacity)
  const loader::DeliveryPlan delivery;       // host or GPU; the GPU stage when used
  const loader::DatasetFootprint footprint;  // what the slots hold, for the memory checks
  const sampler::EpochSteps steps;           // this rank's epoch, echoes counted
  const loader::CacheBudget cache_budget;
  const std::shared_ptr<const loader::BatchFields> fields;  // read whole at Open
  pipeline::AssemblerOptions assembler_options;             // output: the views of the next run
  const memory::SlotLayout layout;
  memory::SlotPool pool;
  // Normalizing: the views of the current run (its batches share them; an own-size file's
  // gather makes their crops). Changed only between runs.
  loader::BatchForm form{.shape = reading.gathered,
                         .normalized = options.normalize,
                         .labelled = dataset.labelled,
                         .fields = fields,
                         .views = nullptr,
                         .capacity = batch_capacity,
                         .cuda_device = options.output.cuda_device};
  pipeline::BatchGatherer gatherer;
  tbb::task_arena arena;
  const loader::StateIdentity identity;  // what a LoaderState of this loader carries
  const DatasetInfo info;

  // Position and counters (trainer's thread).
  int64_t epoch = 0;
  // The epoch's finished stretches on other world sizes (resume_point.h); empty in a plain
  // epoch. With them, the current stretch runs resumed_order, from epoch step first_step.
  std::vector<EpochStretch> stretches;
  std::vector<int64_t> resumed_order;
  int64_t first_step = 0;
  int64_t stretch_steps = steps.delivered();  // delivered steps of the current stretch
  int64_t next_step = 0;  // of the current stretch: already handed out (or skipped)
  loader::EpochOrders orders{geometry, options.sampler, options.shard, options.seed,
                             options.batch_size};
  // Normalizing: the views of later runs.
  loader::ViewSizes view_sizes{delivery.views, delivery.normalize, reading, options.output};
  loader::HeldSlots held_slots{loader::SlotCount(options), options.echo};  // host batches
  uint64_t batches = 0;
  uint64_t samples = 0;
  double wait_seconds = 0;

  std::unique_ptr<loader::DeviceFeed> feed;  // GPU delivery: the device side of every run
  std::exception_ptr device_failure;         // the GPU stage failed: the current run's end
  std::unique_ptr<pipeline::BatchAssembler> assembler;  // the current run; last member
};

}  // namespace h5feed
