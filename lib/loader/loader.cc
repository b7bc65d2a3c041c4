// The facade: wires the modules into a Loader. It owns them and decides when a run of the
// pipeline starts and stops; the work itself (reading, caching, ordering, assembling) is
// theirs.
#include "h5feed/loader.h"

#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "cache/chunk_cache.h"
#include "h5feed/error.h"
#include "index/dataset_index.h"
#include "loader/batch_fields.h"
#include "loader/batch_impl.h"
#include "loader/cache_budget.h"
#include "loader/delivery_plan.h"
#include "loader/device_feed.h"
#include "loader/epoch_orders.h"
#include "loader/gatherer_options.h"
#include "loader/label_mixing_warning.h"
#include "loader/loader_file.h"
#include "loader/open_loader.h"
#include "loader/options_check.h"
#include "loader/reading_plan.h"
#include "loader/resume_point.h"
#include "loader/streamed_fields.h"
#include "loader/view_sizes.h"
#include "loader/warning.h"
#include "make_error.h"
#include "memory/slot_layout.h"
#include "memory/slot_pool.h"
#include "pipeline/batch_assembler.h"
#include "pipeline/batch_gatherer.h"
#include "pipeline/echo.h"
#include "pipeline/epoch_plan.h"
#include "sampler/epoch_order.h"
#include "sampler/epoch_steps.h"

namespace h5feed {
namespace {

// The rows a slot holds: a batch, or a rank's whole share when that is smaller (a batch never
// holds more rows than the rank reads in an epoch), so a batch_size beyond the file's rows
// reserves no memory that no batch could fill.
int64_t BatchCapacity(const LoaderOptions& options, int64_t samples_per_rank) {
  return std::max<int64_t>(1, std::min(options.batch_size, samples_per_rank));
}

// The rows this rank reads, once the file is known to hold any: the sampler's own refusal of
// an empty dataset does not name the file.
int64_t RowsOfRank(const sampler::SampleGeometry& geometry, const LoaderOptions& options,
                   const std::string& path) {
  if (geometry.samples() == 0) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "{} holds no images: there is nothing to read; convert a dataset with images "
                    "into it",
                    path);
  }
  return sampler::SamplesPerRank(geometry, options.shard);
}

// The epoch's steps, once the options are checked against the dataset: drop_last_batch against
// the rows, and the memory the slots and the cache ask for against the machine's, before any
// slot or cache memory is allocated.
sampler::EpochSteps CheckedSteps(const LoaderOptions& options, const index::DatasetIndex& dataset,
                                 const loader::DatasetFootprint& footprint) {
  loader::CheckOptionsForDataset(options, dataset.path, footprint);
  return sampler::CutIntoSteps(footprint.samples_per_rank, options.batch_size,
                               options.drop_last_batch, options.echo);
}

pipeline::AssemblerOptions MakeAssemblerOptions(const LoaderOptions& options,
                                                const loader::CacheBudget& cache_budget,
                                                const loader::DeliveryPlan& delivery) {
  pipeline::AssemblerOptions assembler;
  assembler.echo = options.echo;
  assembler.seed = options.seed;
  assembler.prefetch_chunks = cache_budget.prefetch_chunks();
  delivery.Configure(options, assembler);  // normalizing and echoing: on the host or the GPU
  return assembler;
}

}  // namespace

// Thread-safety: used from the trainer's thread only (Loader's contract); the assembler's
// thread and workers touch only what they borrow through AssemblerResources.
// Members are declared in wiring order and destroyed in reverse: the run (assembler_) goes
// first, before anything it borrows.
struct Loader::Impl {
  Impl(const std::string& path, const LoaderOptions& loader_options,
       const loader::ChunkFileOpener& open_chunk_file)
      : dataset(loader::OpenLoaderIndex(path, loader_options)),
        reading(loader::PlanReading(loader_options, dataset)),
        options(reading.options),
        asked_fields(loader::AskedFields(options, dataset)),
        source(loader::OpenLoaderSource(dataset, options, open_chunk_file)),
        streamed(dataset, *source, asked_fields, options),
        cache(
            source->chunk_bytes(), options.cache_bytes, options.eviction,
            [this](int64_t chunk, cache::ChunkCache::LoadTarget& target) {
              return streamed.Load(chunk, target);
            },
            streamed.companion_bytes()),
        geometry(dataset.chunk_rows()),
        samples_per_rank(RowsOfRank(geometry, options, dataset.path)),
        batch_capacity(BatchCapacity(options, samples_per_rank)),
        delivery(loader::PlanDelivery(options, reading, batch_capacity, asked_fields)),
        footprint{.samples_per_rank = samples_per_rank,
                  .batch_capacity = batch_capacity,
                  .image_bytes = reading.gathered.bytes(),
                  .slot = delivery.slot_contents(options),
                  .chunk_bytes = dataset.chunk_bytes() + streamed.companion_bytes(),
                  .chunks = dataset.chunk_count()},
        steps(CheckedSteps(options, dataset, footprint)),
        cache_budget(
            loader::MeasureCacheBudget(options, batch_capacity, geometry, footprint.chunk_bytes)),
        // Read before the slots and the cache commit their memory, within what they leave.
        fields(loader::ReadBatchFields(asked_fields, dataset,
                                       loader::MemoryBesideCommitted(options, footprint), options,
                                       streamed)),
        assembler_options(MakeAssemblerOptions(options, cache_budget, delivery)),
        layout(batch_capacity, reading.gathered, footprint.slot),
        pool(loader::SlotCount(options), layout.bytes(), delivery.host_allocator()),
        gatherer(cache, dataset.rows, reading.gathered.bytes(), dataset.labels,
                 loader::GathererOptions(options, dataset, reading, *source, form.views, fields,
                                         delivery.stage != nullptr, streamed)),
        arena(options.threads > 0 ? options.threads : tbb::task_arena::automatic),
        identity(loader::IdentifyState(dataset, options)),
        info(loader::DescribeDataset(path, dataset)) {
    // The cache's memory is committed here rather than at the first touch during an epoch:
    // as much of the budget as the file's chunks can use. Chunks used in place in the file
    // need none.
    if (!source->LoadsInPlace()) cache.Reserve(dataset.chunk_count());
    if (auto warning = loader::CacheTooSmallWarning(options, cache_budget, dataset.chunk_count(),
                                                    dataset.path)) {
      loader::Warn(options, *warning);
    }
    if (loader::ChecksLabelMixing(options, dataset)) {
      // Measured on epoch 0's order, which the first run (epoch 0, usually) then takes
      // instead of computing it again.
      loader::WarnIfLabelsUnmixed(options, dataset, orders.ComputeAhead(0));
    }
    if (delivery.stage) {
      feed = std::make_unique<loader::DeviceFeed>(*delivery.stage, layout, options.echo);
    }
  }

  ~Impl() {
    StopRun();  // stop and join the run before anything it borrows goes
    feed.reset();
    // The GPU stage returns host slots from CUDA callbacks: all of them must have run before
    // the pool can go (its last lease must not be dropped inside a callback).
    if (delivery.stage) delivery.stage->Synchronize();
  }

  // Stops the current run, if any: its loads waiting on a network end at once (its stop
  // reaches the sources: StreamedFields::StopLoadsOn; the run's errors go nowhere), and its
  // tasks are joined.
  void StopRun() { assembler.reset(); }

  // Stops the current run (if any) and starts one at (epoch, next_step).
  void StartRun() {
    StopRun();
    form.views = view_sizes.NextRun();  // the size this run delivers (SetOutputSize)
    if (form.views && delivery.stage) delivery.stage->SetViews(*form.views);
    if (form.views && !delivery.stage) assembler_options.output = *form.views;
    // The next epoch's order is computed now too: its first chunks load while this epoch's
    // last batches train (epoch_orders.h).
    std::vector<int64_t> order =
        stretches.empty() ? orders.TakeAndLookAhead(epoch)
                          : orders.TakeAndLookAhead(epoch, resumed_order);  // Restore's again
    auto plan = std::make_shared<const pipeline::EpochPlan>(
        epoch, std::move(order), options.batch_size, options.drop_last_batch, geometry,
        orders.upcoming_start());
    cache.SetPlan(plan->access());
    pipeline::AssemblerResources resources{&cache, &pool, &layout, &gatherer, &arena, &streamed};
    // The GPU path's assembler counts loaded steps (the device makes the echo copies).
    const pipeline::EchoStep first = pipeline::EchoStep::Of(next_step, options.echo);
    const int64_t first_loaded = feed ? first.loaded : next_step;
    if (feed) feed->Restart(first.copy);
    device_failure = nullptr;
    assembler = std::make_unique<pipeline::BatchAssembler>(std::move(plan), first_loaded, resources,
                                                           assembler_options);
  }

  // Runs `wait` (a wait for the run), counting its time in stats().wait_seconds.
  template <typename Wait>
  auto Waited(Wait&& wait) {
    const auto start = std::chrono::steady_clock::now();
    auto result = wait();
    wait_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

  // A batch of the run's event, or nullptr at its end; its error is thrown. The run keeps its
  // end (pipeline/run_end.h): every later Next gets it again, until SetEpoch / Restore.
  template <typename Delivered>
  std::shared_ptr<Batch::Impl> BatchOf(
      std::variant<Delivered, pipeline::EndOfEpoch, std::exception_ptr> event) {
    if (auto* failure = std::get_if<std::exception_ptr>(&event)) std::rethrow_exception(*failure);
    if (std::holds_alternative<pipeline::EndOfEpoch>(event)) return nullptr;
    return loader::MakeBatchImpl(std::move(std::get<Delivered>(event)), form);
  }

  // The GPU path's next event. The GPU stage failing (Error(kCuda): a device fault, which
  // every later CUDA call meets again) ends the run there: its error, naming the step the
  // trainer asked for, is the run's end from then on, without asking the feed again (whose
  // host slots the failed device may never give back: the pipeline would wait for them).
  loader::DeviceEvent DeviceNext() {
    if (device_failure) return device_failure;
    try {
      return feed->Next(*assembler);
    } catch (const Error& error) {
      if (error.code() != ErrorCode::kCuda) throw;
      device_failure = std::make_exception_ptr(
          MakeError(ErrorCode::kCuda, "{} [on the GPU, step {} of epoch {}]", error.what(),
                    first_step + next_step, epoch));
      return device_failure;
    }
  }

  // Host and device batches alike: the run's next event, waited for; with the GPU stage the
  // feed makes device batches of the assembler's host batches on the way.
  std::optional<Batch> Next() {
    if (!assembler) StartRun();
    while (true) {
      std::shared_ptr<Batch::Impl> batch = feed
                                               ? BatchOf(Waited([&] { return DeviceNext(); }))
                                               : BatchOf(Waited([&] { return assembler->Next(); }));
      if (!batch) {
        next_step = stretch_steps;
        return std::nullopt;
      }
      next_step = batch->batch.step + 1;
      batch->batch.step += first_step;  // a step of the epoch, not of its current stretch
      // Every row of this step lay in skipped corrupt chunks: nothing to deliver.
      if (batch->batch.rows == 0) continue;
      ++batches;
      samples += static_cast<uint64_t>(batch->batch.rows);
      return Batch(std::move(batch));
    }
  }

  bool WaitReady(std::chrono::milliseconds timeout) {
    if (!assembler) StartRun();
    if (feed && (device_failure || feed->ready())) return true;
    return Waited([&] { return assembler->WaitReady(timeout); });
  }

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
  uint64_t batches = 0;
  uint64_t samples = 0;
  double wait_seconds = 0;

  std::unique_ptr<loader::DeviceFeed> feed;  // GPU delivery: the device side of every run
  std::exception_ptr device_failure;         // the GPU stage failed: the current run's end
  std::unique_ptr<pipeline::BatchAssembler> assembler;  // the current run; last member
};

namespace loader {

Loader OpenLoader(const std::string& path, const LoaderOptions& options,
                  const ChunkFileOpener& open_chunk_file) {
  return Loader(std::make_unique<Loader::Impl>(path, options, open_chunk_file));
}

}  // namespace loader

Loader Loader::Open(const std::string& path, const LoaderOptions& options) {
  return loader::OpenLoader(path, options, nullptr);
}

Loader::Loader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Loader::Loader(Loader&&) noexcept = default;
Loader& Loader::operator=(Loader&&) noexcept = default;
Loader::~Loader() = default;

Loader::Impl& Loader::live() const {
  // A moved-from Loader holds nothing: say so instead of following a null pointer.
  if (!impl_) {
    throw Error(ErrorCode::kInvalidArgument,
                "h5feed::Loader: this Loader was moved from; its reader belongs to the Loader it "
                "was moved to: use that one, or open another with Loader::Open");
  }
  return *impl_;
}

void Loader::SetOutputSize(int64_t height, int64_t width, int spec) {
  live().view_sizes.SetOutputSize(height, width, spec);
}

void Loader::SetEpoch(int64_t epoch) {
  Impl& impl = live();
  impl.epoch = epoch;
  impl.stretches.clear();
  impl.resumed_order.clear();
  impl.first_step = 0;
  impl.stretch_steps = impl.steps.delivered();
  impl.next_step = 0;
  impl.StartRun();
}

std::optional<Batch> Loader::Next() { return live().Next(); }

bool Loader::WaitReady(std::chrono::milliseconds timeout) { return live().WaitReady(timeout); }

LoaderState Loader::State() const {
  const Impl& impl = live();
  return loader::StateAt(impl.epoch, impl.first_step + impl.next_step, impl.stretches,
                         impl.identity, impl.options);
}

void Loader::Restore(const LoaderState& state) {
  Impl& impl = live();
  loader::ResumePoint point =
      loader::PlanResume(state, impl.identity, impl.geometry, impl.options, impl.steps.delivered());
  impl.epoch = point.epoch;
  impl.first_step = point.first_step();
  impl.stretch_steps = point.stretch_steps;
  impl.stretches = std::move(point.stretches);
  impl.resumed_order = std::move(point.order);
  impl.next_step = point.step;
  impl.StartRun();
}

int64_t Loader::batches_per_epoch() const {
  const Impl& impl = live();
  return impl.first_step + impl.stretch_steps;
}

int64_t Loader::samples_per_epoch() const { return live().samples_per_rank; }

const DatasetInfo& Loader::dataset() const { return live().info; }

const std::vector<FieldSpec>& Loader::fields() const { return live().asked_fields; }

std::vector<std::string> Loader::streamed_fields() const { return live().streamed.names(); }

LoaderStats Loader::stats() const {
  Impl& impl = live();
  const cache::CacheStats cache = impl.cache.stats();
  LoaderStats stats;
  stats.batches = impl.batches;
  stats.samples = impl.samples;
  stats.chunk_reads = cache.loads;
  stats.chunk_reads_ahead = cache.prefetches_past_epoch;
  stats.cache_hits = cache.hits;
  stats.cache_misses = cache.misses;
  stats.bytes_read = cache.bytes_read;
  stats.bytes_decoded = cache.bytes_decoded;
  stats.corrupt_chunks_skipped = impl.gatherer.corrupt_chunks_skipped();
  stats.samples_skipped = impl.gatherer.samples_skipped();
  stats.wait_seconds = impl.wait_seconds;
  stats.slot_bytes = static_cast<uint64_t>(impl.layout.bytes()) *
                     static_cast<uint64_t>(loader::SlotCount(impl.options));
  return stats;
}

}  // namespace h5feed
