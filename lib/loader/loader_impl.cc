// Loader::Impl wired and run: Open's checks in the order the modules need them, and the runs
// of the pipeline the trainer's calls start, stop and wait for.
#include "loader/loader_impl.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "h5feed/error.h"
#include "loader/gatherer_options.h"
#include "loader/geometric_fields.h"
#include "loader/held_fields_warning.h"
#include "loader/label_mixing_warning.h"
#include "loader/loader_file.h"
#include "loader/warning.h"
#include "make_error.h"
#include "pipeline/echo.h"
#include "pipeline/epoch_plan.h"

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

Loader::Impl::Impl(const std::string& path, const LoaderOptions& loader_options,
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
                .chunks = dataset.chunk_count(),
                .mask_bytes = delivery.HostMaskBytesPerRow(asked_fields, reading.gathered)},
      steps(CheckedSteps(options, dataset, footprint)),
      cache_budget(
          loader::MeasureCacheBudget(options, batch_capacity, geometry, footprint.chunk_bytes)),
      // Read before the slots and the cache commit their memory, within what they leave.
      fields(loader::ReadBatchFields(asked_fields, dataset,
                                     loader::MemoryBesideCommitted(options, footprint), options,
                                     streamed, reading.crops_at_gather)),
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
  if (auto warning = loader::HeldFieldsWarning(options, *fields, loader::HeldFieldLimit(options))) {
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

Loader::Impl::~Impl() {
  StopRun();  // stop and join the run before anything it borrows goes
  feed.reset();
  // The GPU stage returns host slots from CUDA callbacks: all of them must have run before
  // the pool can go (its last lease must not be dropped inside a callback).
  if (delivery.stage) delivery.stage->Synchronize();
}

void Loader::Impl::StartRun() {
  StopRun();
  form.views = view_sizes.NextRun();  // the size this run delivers (SetOutputSize)
  if (form.views && delivery.stage) delivery.stage->SetViews(*form.views);
  if (form.views && !delivery.stage) assembler_options.output = *form.views;
  assembler_options.make_extras = loader::GeometricFieldsMaker(form, assembler_options.device_echo);
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

template <typename Wait>
auto Loader::Impl::Waited(Wait&& wait) {
  const auto start = std::chrono::steady_clock::now();
  auto result = wait();
  wait_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

template <typename Delivered>
std::shared_ptr<Batch::Impl> Loader::Impl::BatchOf(
    std::variant<Delivered, pipeline::EndOfEpoch, std::exception_ptr> event) {
  if (auto* failure = std::get_if<std::exception_ptr>(&event)) std::rethrow_exception(*failure);
  if (std::holds_alternative<pipeline::EndOfEpoch>(event)) return nullptr;
  return loader::MakeBatchImpl(std::move(std::get<Delivered>(event)), form);
}

loader::DeviceEvent Loader::Impl::DeviceNext() {
  if (device_failure) return device_failure;
  try {
    return feed->Next(*assembler);
  } catch (const Error& error) {
    if (error.code() != ErrorCode::kCuda) throw;
    device_failure =
        std::make_exception_ptr(MakeError(ErrorCode::kCuda, "{} [on the GPU, step {} of epoch {}]",
                                          error.what(), first_step + next_step, epoch));
    return device_failure;
  }
}

std::optional<Batch> Loader::Impl::Next() {
  if (!assembler) StartRun();
  while (true) {
    if (!feed) AwaitHostEvent();
    std::shared_ptr<Batch::Impl> batch = feed ? BatchOf(Waited([&] { return DeviceNext(); }))
                                              : BatchOf(Waited([&] { return assembler->Next(); }));
    if (!batch) {
      next_step = stretch_steps;
      return std::nullopt;
    }
    next_step = batch->batch.step + 1;
    batch->batch.step += first_step;  // a step of the epoch, not of its current stretch
    // Every row of this step lay in skipped corrupt chunks: nothing to deliver.
    if (batch->batch.rows == 0) continue;
    if (!feed) batch->held = held_slots.Hold();
    ++batches;
    samples += static_cast<uint64_t>(batch->batch.rows);
    return Batch(std::move(batch));
  }
}

void Loader::Impl::AwaitHostEvent() {
  // Short enough that a batch released on another thread is seen at once, long enough that
  // the wait costs nothing.
  constexpr std::chrono::milliseconds kSlice{100};
  while (!Waited([&] { return assembler->WaitReady(kSlice); })) {
    held_slots.CheckNotStarved(std::chrono::steady_clock::now());
  }
  held_slots.BatchArrived();
}

bool Loader::Impl::WaitReady(std::chrono::milliseconds timeout) {
  if (!assembler) StartRun();
  if (feed && (device_failure || feed->ready())) return true;
  return Waited([&] { return assembler->WaitReady(timeout); });
}

}  // namespace h5feed
