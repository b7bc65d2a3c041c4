// The facade: wires the modules into a Loader. It owns them and decides when a run of the
// pipeline starts and stops; the work itself (reading, caching, ordering, assembling) is
// theirs.
#include "h5feed/loader.h"

#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cache/chunk_cache.h"
#include "h5feed/error.h"
#include "index/chunk_reader.h"
#include "index/dataset_index.h"
#include "io/random_access_file.h"
#include "loader/batch_impl.h"
#include "loader/delivery_plan.h"
#include "loader/device_feed.h"
#include "loader/loader_testing.h"
#include "loader/options_check.h"
#include "loader/refetching_read.h"
#include "loader/remote_readahead.h"
#include "loader/state_fingerprint.h"
#include "loader/warning.h"
#include "memory/slot_pool.h"
#include "pipeline/batch_assembler.h"
#include "pipeline/batch_gatherer.h"
#include "pipeline/epoch_plan.h"
#include "pipeline/slot_layout.h"
#include "probe/open_probe.h"
#include "remote/location.h"
#include "sampler/epoch_order.h"

namespace h5feed {
namespace {

cache::EvictionPolicy ToCachePolicy(EvictionPolicy policy) {
  return policy == EvictionPolicy::kLru ? cache::EvictionPolicy::kLru
                                        : cache::EvictionPolicy::kBelady;
}

using loader::Warn;

// chunks:W and quasi:W: samplers that keep a window of W chunks open.
bool Windowed(const SamplerOptions& sampler) {
  return sampler.kind == SamplerOptions::Kind::kChunks ||
         sampler.kind == SamplerOptions::Kind::kQuasi;
}

index::DatasetIndex OpenIndex(const std::string& path, const LoaderOptions& options) {
  loader::CheckOptions(options);  // before touching the file: a bad option is the first error
  if (options.open_probe) {  // HDF5 may crash or hang on the file: there, not here (open_probe.h)
    probe::ProbeOpen(path,
                     probe::ProbeRequest{probe::ProbeTarget::kLoader, options.images_dataset,
                                         options.labels_dataset, options.file_locking,
                                         std::chrono::seconds(options.open_probe_stall_seconds),
                                         options.remote},
                     [&](const std::string& warning) { Warn(options, warning); });
  }
  index::IndexOptions index_options;
  index_options.images = options.images_dataset;
  index_options.labels = options.labels_dataset;
  index_options.file_locking = options.file_locking;
  index_options.remote = options.remote;
  index::DatasetIndex dataset = index::OpenDatasetIndex(path, index_options);
  for (const std::string& warning : dataset.warnings) Warn(options, warning);
  return dataset;
}

// SamplesPerRank, checked against the batch size, and the memory the options ask for against
// the machine's, before any slot or cache memory is allocated.
int64_t CheckedSamplesPerRank(const SampleGeometry& geometry, const LoaderOptions& options,
                              const index::DatasetIndex& dataset) {
  const int64_t samples = SamplesPerRank(geometry, options.shard);
  loader::CheckOptionsForDataset(
      options, dataset.path,
      loader::DatasetFootprint{samples, dataset.sample_bytes(),
                               dataset.chunk_samples * dataset.sample_bytes(),
                               dataset.chunk_count()});
  return samples;
}

// The cache in chunks, against what the sampler keeps in use at once (the working set): the
// sampler's window (W for chunks:W and quasi:W, one chunk for sequential), the chunks of the
// steps in flight (one per slot, each touching about batch / K + 1 chunks) and one pinned per
// thread. For random every chunk is in the working set; half the cache is a guess that the
// cache's own refusal of harmful prefetches makes safe.
struct CacheRoom {
  int64_t cache_chunks = 0;
  int64_t working_set = 0;
  int64_t chunk_bytes = 0;
};

CacheRoom MeasureCacheRoom(const LoaderOptions& options, const index::DatasetIndex& dataset) {
  CacheRoom room;
  room.chunk_bytes = dataset.chunk_samples * dataset.sample_bytes();
  if (room.chunk_bytes <= 0) return room;
  room.cache_chunks = options.cache_bytes / room.chunk_bytes;
  const int64_t threads = options.threads > 0 ? options.threads : 1;
  const int64_t in_flight = options.slots * (options.batch_size / dataset.chunk_samples + 1);
  room.working_set = room.cache_chunks / 2;
  switch (options.sampler.kind) {
    case SamplerOptions::Kind::kSequential: room.working_set = 1 + in_flight + threads; break;
    case SamplerOptions::Kind::kChunks:
    case SamplerOptions::Kind::kQuasi:
      room.working_set = options.sampler.window + in_flight + threads;
      break;
    case SamplerOptions::Kind::kRandom: break;
  }
  return room;
}

// How many chunks the assembler may prefetch ahead: the cache less the working set.
// Prefetching into the working set's room evicts chunks that are needed again.
int64_t PrefetchChunks(const LoaderOptions& options, const index::DatasetIndex& dataset) {
  const CacheRoom room = MeasureCacheRoom(options, dataset);
  return std::max<int64_t>(0, room.cache_chunks - room.working_set);
}

// chunks:W moves to a new window of W chunks every W x K / batch steps; with room for that
// window beside the working set, the assembler loads it while the last batches of the current
// one are gathered. Without it the trainer waits at every window switch (a 64 MiB cache under
// chunks:8 on 4 MiB chunks: 10-30 ms each on 2 cores). quasi:W replaces one chunk of its
// active set at a time, so it needs one ahead. With less than the working set, chunks are read
// more than once per epoch (the working set is an upper estimate, so "may"). Said once, at
// Open, with the size that avoids it; not when the cache holds the whole file anyway.
void WarnIfCacheTooSmall(const LoaderOptions& options, const index::DatasetIndex& dataset) {
  const SamplerOptions& sampler = options.sampler;
  if (!Windowed(sampler)) return;
  const int64_t ahead = sampler.kind == SamplerOptions::Kind::kChunks ? sampler.window : 1;
  const CacheRoom room = MeasureCacheRoom(options, dataset);
  const int64_t wanted = std::min(room.working_set + ahead, dataset.chunk_count());
  if (room.chunk_bytes <= 0 || room.cache_chunks >= wanted) return;
  const auto size = [](int64_t bytes) {  // rounded up: the size that is enough
    return bytes >= (1 << 20) ? std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"
                              : std::to_string((bytes + 1023) >> 10) + " KiB";
  };
  const std::string use = "sampler " + sampler.ToString() + " keeps about " +
                          std::to_string(room.working_set) + " in use (its window, the steps " +
                          "in flight in " + std::to_string(options.slots) +
                          " slots, one per thread)";
  const std::string consequence =
      room.cache_chunks < room.working_set
          ? ": chunks may be read and decoded more than once per epoch"
          : " and needs room for " + std::to_string(ahead) +
                " more to load the next ones ahead: batches can wait at each window switch";
  Warn(options, "a cache of " + size(options.cache_bytes) + " holds " +
                    std::to_string(room.cache_chunks) + " chunks of " + dataset.path + ", but " +
                    use + consequence + ". cache_bytes of " + size(wanted * room.chunk_bytes) +
                    " avoids it (or use a smaller window)");
}

// The gatherer checks each sample as it copies it when the file has per-sample checksums (the
// reader then skips the chunk checksum): the copy finds the sample in the cache.
pipeline::BatchGatherer::RowCheck RowCheck(const index::ChunkReader& reader) {
  if (!reader.ChecksRows()) return nullptr;
  return [&reader](int64_t row, std::span<const uint8_t> sample) { reader.VerifyRow(row, sample); };
}

pipeline::AssemblerOptions MakeAssemblerOptions(const LoaderOptions& options,
                                                const index::DatasetIndex& dataset,
                                                const loader::DeliveryPlan& delivery) {
  pipeline::AssemblerOptions assembler;
  assembler.echo = options.echo;
  assembler.seed = options.seed;
  assembler.prefetch_chunks = PrefetchChunks(options, dataset);
  delivery.Configure(options, assembler);  // normalizing and echoing: on the host or the GPU
  return assembler;
}

}  // namespace

// Thread-safety: used from the trainer's thread only (Loader's contract); the assembler's
// thread and workers touch only what they borrow through AssemblerResources.
// Members are declared in wiring order and destroyed in reverse: the run (assembler_) goes
// first, before anything it borrows.
struct Loader::Impl {
  Impl(const std::string& path, const LoaderOptions& loader_options)
      : options(loader_options),
        dataset(OpenIndex(path, loader_options)),
        file(loader::OpenChunkFile(dataset)),  // remote::OpenFile, unless a test injects faults
        // A remote chunk is checked whole as it is loaded, where a corrupt response can still
        // be fetched again (refetching_read.h), not image by image as it is gathered.
        reader(dataset, *file,
               index::ChunkReaderOptions{.verify_checksums = options.verify_checksums,
                                         .rows_checked_by_caller = !IsRemoteLocation(path),
                                         .map_file = options.map_file}),
        cache(reader.chunk_bytes(), options.cache_bytes, ToCachePolicy(options.eviction),
              [this](int64_t chunk, cache::ChunkCache::LoadTarget& target) {
                return LoadChunk(chunk, target);
              }),
        geometry{dataset.samples, dataset.chunk_samples},
        samples_per_rank(CheckedSamplesPerRank(geometry, options, dataset)),
        delivery(loader::PlanDelivery(options, dataset.shape)),
        assembler_options(MakeAssemblerOptions(options, dataset, delivery)),
        layout(options.batch_size, dataset.shape, delivery.slot_contents(options)),
        pool(options.slots, layout.bytes(), delivery.host_allocator()),
        gatherer(cache, dataset.chunk_samples, dataset.sample_bytes(), dataset.labels,
                 pipeline::BatchGatherer::Options{options.skip_corrupt_chunks,
                                                  options.on_warning, RowCheck(reader)}),
        arena(options.threads > 0 ? options.threads : tbb::task_arena::automatic),
        fingerprint(loader::StateFingerprint(dataset, options)) {
    info.path = path;
    info.samples = dataset.samples;
    info.image_shape = dataset.shape;
    info.chunk_samples = dataset.chunk_samples;
    info.chunks = dataset.chunk_count();
    info.classes = dataset.classes;
    // The cache's memory is committed here rather than at the first touch during an epoch:
    // as much of the budget as the file's chunks can use. Chunks used in place in the file
    // need none.
    if (!reader.MapsInPlace()) cache.Reserve(dataset.chunk_count());
    readahead = loader::MakeRemoteReadahead(dataset, *file, cache, options.cache_bytes);
    WarnIfCacheTooSmall(options, dataset);
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

  // An uncompressed chunk stays where it is in the page cache (mapped; the batch gathers its
  // rows from there); any other is decoded into a cache buffer.
  cache::LoadResult LoadChunk(int64_t chunk, cache::ChunkCache::LoadTarget& target) const {
    if (readahead) readahead->Advance();  // a remote file: the next chunks' bytes on their way
    if (std::unique_ptr<io::MappedRange> mapped = reader.MapInPlace(chunk)) {
      const std::span<const uint8_t> bytes = mapped->bytes();
      target.Adopt(bytes, std::shared_ptr<const io::MappedRange>(std::move(mapped)));
      return cache::LoadResult{bytes.size(), bytes.size()};
    }
    const index::ChunkReadStats read =
        loader::ReadRefetchingCorrupt(reader, dataset, *file, chunk, target.Buffer());
    return cache::LoadResult{read.bytes_read, read.bytes_decoded};
  }

  int64_t LoadedSteps() const {
    return options.drop_last_batch
               ? samples_per_rank / options.batch_size
               : (samples_per_rank + options.batch_size - 1) / options.batch_size;
  }

  // The order of epoch `e`: the one computed ahead when `e` is the epoch that was expected.
  std::vector<int64_t> OrderOf(int64_t e) {
    if (upcoming_epoch == e) {
      upcoming_epoch = -1;
      return std::move(upcoming_order);
    }
    return EpochOrder(geometry, options.sampler, options.shard, options.seed, e);
  }

  // The rows of the next epoch's start that the cache may load while this epoch ends: its
  // first window under chunks:W and quasi:W (the chunks its first batch waits for), and at
  // least two batches.
  std::span<const int64_t> UpcomingStart() const {
    const int64_t window_rows =
        Windowed(options.sampler) ? options.sampler.window * dataset.chunk_samples : 0;
    const auto rows = static_cast<size_t>(std::max(window_rows, 2 * options.batch_size));
    return std::span<const int64_t>(upcoming_order).first(std::min(rows, upcoming_order.size()));
  }

  // Stops the current run, if any: its reads waiting on a network end at once (a remote
  // file's; the run's errors go nowhere), and its tasks are joined.
  void StopRun() {
    file->CancelReads();
    assembler.reset();
    file->ResumeReads();
  }

  // Stops the current run (if any) and starts one at (epoch, next_step).
  void StartRun() {
    StopRun();
    error = nullptr;
    std::vector<int64_t> order = OrderOf(epoch);
    // Trainers go from epoch e to e + 1: its order is computed now, once (and kept: one more
    // order's worth of memory), so its first chunks load while this epoch's last batches
    // train; any other SetEpoch or Restore just finds them cached or evicts them.
    upcoming_order.clear();
    upcoming_epoch = -1;
    if (epoch < std::numeric_limits<int64_t>::max()) {
      upcoming_order =
          EpochOrder(geometry, options.sampler, options.shard, options.seed, epoch + 1);
      upcoming_epoch = epoch + 1;
    }
    auto plan = std::make_shared<const pipeline::EpochPlan>(
        epoch, std::move(order), options.batch_size, options.drop_last_batch,
        dataset.chunk_samples, dataset.chunk_count(), UpcomingStart());
    cache.SetPlan(plan->access());
    if (readahead) readahead->Start(plan->access());
    pipeline::AssemblerResources resources{&cache, &pool, &layout, &gatherer, &arena};
    // The GPU path's assembler counts loaded steps (the device makes the echo copies).
    const int64_t first_step = feed ? next_step / options.echo : next_step;
    if (feed) feed->Restart(static_cast<int>(next_step % options.echo));
    assembler = std::make_unique<pipeline::BatchAssembler>(std::move(plan), first_step,
                                                           resources, assembler_options);
  }

  // Next for the GPU path: the feed turns loaded host batches into device batches.
  std::optional<Batch> NextOnDevice() {
    const auto start = std::chrono::steady_clock::now();
    loader::DeviceEvent event = feed->Next(*assembler);
    wait_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                        .count();
    if (std::holds_alternative<pipeline::EndOfEpoch>(event)) {
      next_step = assembler->delivered_steps() * options.echo;
      return std::nullopt;
    }
    if (auto* failure = std::get_if<std::exception_ptr>(&event)) {
      error = *failure;
      std::rethrow_exception(error);
    }
    auto& delivered = std::get<loader::DeviceDelivery>(event);
    next_step = delivered.step + 1;
    auto impl = std::make_shared<Batch::Impl>();
    impl->shape = dataset.shape;
    impl->normalized = true;
    impl->spec = delivery.spec;
    impl->device = std::move(delivered.device);
    impl->cuda_device = options.output.cuda_device;
    impl->host_labels = std::move(delivered.labels);
    impl->host_indices = std::move(delivered.indices);
    impl->batch.rows = static_cast<int64_t>(impl->host_labels.size());
    impl->batch.epoch = delivered.epoch;
    impl->batch.step = delivered.step;
    impl->batch.view.labels = impl->host_labels;
    impl->batch.view.indices = impl->host_indices;
    ++batches;
    samples += static_cast<uint64_t>(impl->batch.rows);
    return Batch(std::move(impl));
  }

  std::optional<Batch> Next() {
    if (error) std::rethrow_exception(error);
    if (!assembler) StartRun();
    if (feed) return NextOnDevice();
    while (true) {
      const auto start = std::chrono::steady_clock::now();
      pipeline::PipelineEvent event = assembler->Next();
      wait_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                          .count();
      if (std::holds_alternative<pipeline::EndOfEpoch>(event)) {
        next_step = assembler->delivered_steps();
        return std::nullopt;
      }
      if (auto* failure = std::get_if<std::exception_ptr>(&event)) {
        error = *failure;
        std::rethrow_exception(error);
      }
      auto& assembled = std::get<pipeline::AssembledBatch>(event);
      next_step = assembled.step + 1;
      // Every row of this step lay in skipped corrupt chunks: nothing to deliver.
      if (assembled.rows == 0) continue;
      ++batches;
      samples += static_cast<uint64_t>(assembled.rows);
      auto impl = std::make_shared<Batch::Impl>();
      impl->batch = std::move(assembled);
      impl->shape = dataset.shape;
      impl->normalized = options.normalize;
      impl->spec = delivery.spec;
      return Batch(std::move(impl));
    }
  }

  const LoaderOptions options;
  const index::DatasetIndex dataset;
  const std::unique_ptr<io::RandomAccessFile> file;
  const index::ChunkReader reader;
  cache::ChunkCache cache;
  const SampleGeometry geometry;
  const int64_t samples_per_rank;
  const loader::DeliveryPlan delivery;  // host or GPU; the GPU stage when used
  const pipeline::AssemblerOptions assembler_options;
  const pipeline::SlotLayout layout;
  memory::SlotPool pool;
  pipeline::BatchGatherer gatherer;
  tbb::task_arena arena;
  const uint64_t fingerprint;
  DatasetInfo info;
  std::unique_ptr<loader::RemoteReadahead> readahead;  // a remote file's; else null

  // Position and counters (trainer's thread).
  int64_t epoch = 0;
  int64_t next_step = 0;  // delivered steps of `epoch` already handed out (or skipped)
  // The order of the epoch expected after `epoch` (-1: none computed).
  int64_t upcoming_epoch = -1;
  std::vector<int64_t> upcoming_order;
  std::exception_ptr error;  // the run's error, rethrown by Next until SetEpoch/Restore
  uint64_t batches = 0;
  uint64_t samples = 0;
  double wait_seconds = 0;

  std::unique_ptr<loader::DeviceFeed> feed;  // GPU delivery: the device side of every run
  std::unique_ptr<pipeline::BatchAssembler> assembler;  // the current run; last member
};

Loader Loader::Open(const std::string& path, const LoaderOptions& options) {
  return Loader(std::make_unique<Impl>(path, options));
}

Loader::Loader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Loader::Loader(Loader&&) noexcept = default;
Loader& Loader::operator=(Loader&&) noexcept = default;
Loader::~Loader() = default;

void Loader::SetEpoch(int64_t epoch) {
  impl_->epoch = epoch;
  impl_->next_step = 0;
  impl_->StartRun();
}

std::optional<Batch> Loader::Next() { return impl_->Next(); }

bool Loader::WaitReady(std::chrono::milliseconds timeout) {
  if (impl_->error) return true;
  if (!impl_->assembler) impl_->StartRun();
  if (impl_->feed && impl_->feed->ready()) return true;
  const auto start = std::chrono::steady_clock::now();
  const bool ready = impl_->assembler->WaitReady(timeout);
  impl_->wait_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return ready;
}

LoaderState Loader::State() const {
  return LoaderState{impl_->epoch, impl_->next_step, impl_->options.seed, impl_->fingerprint};
}

void Loader::Restore(const LoaderState& state) {
  if (state.seed != impl_->options.seed) {
    throw Error(ErrorCode::kInvalidArgument,
                "Restore: the state was taken with seed " + std::to_string(state.seed) +
                    " but this loader uses seed " + std::to_string(impl_->options.seed) +
                    "; open it with the state's seed");
  }
  if (state.fingerprint != impl_->fingerprint) {
    throw Error(ErrorCode::kInvalidArgument,
                "Restore: the state was taken on another file geometry or with other "
                "order-relevant options (batch_size, drop_last_batch, sampler, "
                "shard.world_size, shard.drop_last, echo) than " + impl_->info.path +
                    " opened with these options");
  }
  if (state.step < 0 || state.step > batches_per_epoch()) {
    throw Error(ErrorCode::kInvalidArgument,
                "Restore: step " + std::to_string(state.step) + " is outside the epoch's " +
                    std::to_string(batches_per_epoch()) + " steps");
  }
  impl_->epoch = state.epoch;
  impl_->next_step = state.step;
  impl_->StartRun();
}

int64_t Loader::batches_per_epoch() const {
  return impl_->LoadedSteps() * impl_->options.echo;
}

int64_t Loader::samples_per_epoch() const { return impl_->samples_per_rank; }

const DatasetInfo& Loader::dataset() const { return impl_->info; }

LoaderStats Loader::stats() const {
  const cache::CacheStats cache = impl_->cache.stats();
  LoaderStats stats;
  stats.batches = impl_->batches;
  stats.samples = impl_->samples;
  stats.chunk_reads = cache.loads;
  stats.chunk_reads_ahead = cache.prefetches_past_epoch;
  stats.cache_hits = cache.hits;
  stats.cache_misses = cache.misses;
  stats.bytes_read = cache.bytes_read;
  stats.bytes_decoded = cache.bytes_decoded;
  stats.corrupt_chunks_skipped = impl_->gatherer.corrupt_chunks_skipped();
  stats.samples_skipped = impl_->gatherer.samples_skipped();
  stats.wait_seconds = impl_->wait_seconds;
  return stats;
}

}  // namespace h5feed
