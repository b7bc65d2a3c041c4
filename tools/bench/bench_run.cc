// RunBench and its derived figures (bench_run.h).

#include "bench_run.h"

#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <span>
#include <thread>
#include <vector>

#include "bench/augment_spec.h"
#include "bench/bench_option_names.h"
#include "bench/page_cache.h"
#include "loader/options_check.h"
#include "sampler/epoch_order.h"

namespace h5feed::bench {
namespace {

using Clock = std::chrono::steady_clock;

// The shuffle-quality figure is measured on the first epoch's order, kept while it is read.
// Capped so that keeping it (8 bytes a sample) never shows in the peak RSS being measured: at
// most 8 MiB, and a prefix of a million samples measures an order as well as all of it.
constexpr size_t kMaxOrderSamples = size_t{1} << 20;

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

LoaderOptions MakeOptions(const BenchSettings& s) {
  LoaderOptions options;
  options.images_dataset = s.images;
  options.batch_size = s.batch;
  options.sampler = SamplerOptions::Parse(s.sampler);
  options.seed = s.seed;
  options.shard.rank = s.rank;
  options.shard.world_size = s.world_size;
  options.cache_bytes = s.cache_mb << 20;
  options.slots = s.slots;
  options.threads = s.threads;
  options.normalize = s.normalize || !s.augment.empty();
  if (!s.augment.empty()) options.output.augment = ParseAugmentSpec(s.augment);
  options.verify_checksums = s.verify_checksums;
  options.map_file = s.map_file;
  options.direct = s.direct;
  options.jpeg_region_decode = s.jpeg_region_decode;
  options.file_locking = s.file_locking;
  options.open_probe = s.open_probe;
  options.remote = s.remote;
  options.fields = s.fields;
  if (s.stream_fields) options.held_field_bytes = 1;  // no field fits: every streamable one
  options.option_names = BenchOptionNames();
  return options;
}

// Which rows each of the file's chunks holds, as the loader's samplers see them.
ChunkRows RowsOfChunks(const DatasetInfo& dataset) { return ChunkRows(dataset.chunk_first_rows); }

// The `random` sampler's first epoch on the same rows, measured like the run's own order: the
// figure users compare a chunk-aware sampler's quality with.
sampler::ShuffleQuality RandomSamplerQuality(const DatasetInfo& dataset, int64_t batch,
                                             uint64_t seed) {
  SamplerOptions random;
  random.kind = SamplerOptions::Kind::kRandom;
  std::vector<int64_t> order =
      sampler::EpochOrder(RowsOfChunks(dataset), random, ShardOptions{}, seed, 0);
  if (order.size() > kMaxOrderSamples) order.resize(kMaxOrderSamples);
  return sampler::MeasureShuffleQuality(order, RowsOfChunks(dataset), batch);
}

// The delivered samples' labels in batches of `batch`, as the loader's check measures an
// order (sampler/label_mixing.h): the meter takes the labels in delivery order, so the order
// measured is 0, 1, 2, ... (at most kMaxOrderSamples: well within what the meter takes).
std::optional<sampler::LabelMixing> MeasureLabelMixing(std::span<const int64_t> labels,
                                                       int64_t batch) {
  const sampler::LabelMixingMeter meter(labels);
  if (meter.classes() < 2) return std::nullopt;
  std::vector<int64_t> positions(labels.size());
  std::iota(positions.begin(), positions.end(), int64_t{0});
  return meter.Measure(positions, batch);
}

}  // namespace

int UsableCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

// Linux's VmHWM belongs to this program's address space alone; getrusage's ru_maxrss is kept
// across fork and execve, so a bench started by a large parent (a Python script holding
// arrays) would report the parent's peak instead.
double PeakRssMib() {
  if (std::FILE* status = std::fopen("/proc/self/status", "r")) {
    char line[256];
    long long kib = -1;
    while (std::fgets(line, sizeof line, status)) {
      if (std::sscanf(line, "VmHWM: %lld kB", &kib) == 1) break;
    }
    std::fclose(status);
    if (kib >= 0) return static_cast<double>(kib) / 1024.0;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

void CheckSettings(const BenchSettings& settings) { loader::CheckOptions(MakeOptions(settings)); }

BenchResult RunBench(const BenchSettings& settings, const std::atomic<bool>& cancel,
                     const std::function<void(int64_t, int64_t)>& progress) {
  BenchResult result;
  const LoaderOptions options = MakeOptions(settings);
  const auto open_start = Clock::now();
  Loader loader = Loader::Open(settings.path, options);
  result.open_seconds = std::chrono::duration<double>(Clock::now() - open_start).count();
  result.dataset = loader.dataset();
  result.threads = settings.threads > 0 ? settings.threads : UsableCores();
  result.slot_mib = static_cast<double>(loader.stats().slot_bytes) / (1 << 20);

  const int64_t total = settings.epochs * loader.samples_per_epoch();
  std::vector<int64_t> order, labels;  // of the first epoch's samples, as delivered
  order.reserve(
      std::min<size_t>(static_cast<size_t>(loader.samples_per_epoch()), kMaxOrderSamples));
  labels.reserve(order.capacity());
  const auto step = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double, std::milli>(settings.step_ms));
  // Reading one byte of every batch is the least a consumer does; the volatile sink keeps the
  // compiler from proving that nothing uses the batches.
  volatile unsigned sink = 0;
  const double cpu_start = CpuSeconds();
  const auto start = Clock::now();
  auto finished = start;
  double cpu_finished = cpu_start;
  const auto deadline = settings.max_seconds > 0
                            ? start + std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(settings.max_seconds))
                            : Clock::time_point::max();
  Clock::duration dropping{};  // spent dropping the file between epochs: not the reader's
  double dropping_cpu = 0;
  auto timed = [&] { return std::chrono::duration<double>(finished - start - dropping).count(); };
  for (int64_t epoch = 0;
       (epoch < settings.epochs || (result.images > 0 && timed() < settings.min_seconds)) &&
       !cancel && !result.time_limited;
       ++epoch) {
    if (settings.cold_each_epoch && epoch > 0) {
      const auto drop_start = Clock::now();
      const double drop_cpu = CpuSeconds();
      const Eviction eviction = EvictFromPageCache(settings.path);
      ++result.cold_drops;
      result.most_resident_after_drop =
          std::max(result.most_resident_after_drop, eviction.after.fraction());
      dropping += Clock::now() - drop_start;
      dropping_cpu += CpuSeconds() - drop_cpu;
    }
    loader.SetEpoch(epoch);
    const uint64_t ahead_before = loader.stats().chunk_reads_ahead;
    bool epoch_complete = true;
    auto asked = Clock::now();  // when the Next() now running was called
    while (std::optional<Batch> batch = loader.Next()) {
      sink = sink + batch->images()[0];
      if (options.normalize) sink = sink + static_cast<unsigned>(batch->normalized_images()[0]);
      for (int k = 0; k < batch->fields(); ++k) {
        const std::span<const uint8_t> value = batch->field_bytes(k, 0);
        if (!value.empty()) sink = sink + value[0];
      }
      result.images += batch->size();
      result.pixel_bytes += static_cast<int64_t>(batch->images().size());
      if (epoch == 0 && order.size() < kMaxOrderSamples) {
        const size_t taken = std::min(batch->indices().size(), kMaxOrderSamples - order.size());
        const std::span<const int64_t> rows = batch->indices().first(taken);
        order.insert(order.end(), rows.begin(), rows.end());
        // A file without labels has none to measure (the mixing figures are then left out).
        if (!batch->labels().empty()) {
          const std::span<const int64_t> row_labels = batch->labels().first(taken);
          labels.insert(labels.end(), row_labels.begin(), row_labels.end());
        }
      }
      if (step.count() > 0) {
        const auto step_start = Clock::now();
        std::this_thread::sleep_until(step_start + step);
        result.consumer_seconds += std::chrono::duration<double>(Clock::now() - step_start).count();
      }
      // The clock stops at the last batch consumed, not when Next() then reports the end:
      // that report waits for the next epoch's first chunks, loaded while this one ends.
      finished = Clock::now();
      cpu_finished = CpuSeconds();
      if (progress) progress(result.images, total);
      if (cancel || Clock::now() >= deadline) {
        epoch_complete = false;
        result.time_limited = !cancel;
        break;
      }
      asked = Clock::now();
    }
    // Reads this epoch made ahead for the next: used if there is one, else extra.
    result.chunk_reads_next_epoch = loader.stats().chunk_reads_ahead - ahead_before;
    if (epoch_complete) {
      ++result.epochs_done;
      // The report of the end, outside the timed span like the loads it waited for.
      result.end_wait_seconds += std::chrono::duration<double>(Clock::now() - asked).count();
    }
  }
  result.seconds = timed();
  result.cpu_seconds = cpu_finished - cpu_start - dropping_cpu;
  result.interrupted = cancel;
  result.stats = loader.stats();
  result.peak_rss_mib = PeakRssMib();
  if (order.size() >= 2) {
    result.quality =
        sampler::MeasureShuffleQuality(order, RowsOfChunks(result.dataset), settings.batch);
    result.random_quality = RandomSamplerQuality(result.dataset, settings.batch, settings.seed);
    result.label_mixing = MeasureLabelMixing(labels, settings.batch);
  }
  return result;
}

bool IsShortRun(const BenchResult& r) {
  return r.seconds < kShortRunSeconds && !r.time_limited && !r.interrupted;
}

double ImagesPerSecond(const BenchResult& r) {
  return r.seconds > 0 ? static_cast<double>(r.images) / r.seconds : 0;
}

double PixelMbPerSecond(const BenchResult& r) {
  return r.seconds > 0 ? static_cast<double>(r.pixel_bytes) / 1e6 / r.seconds : 0;
}

// Chunk reads per chunk per epoch: 1.00 when every chunk is read once an epoch. A run cut
// short by max_seconds counts the epochs' worth it read. The reads made during the last epoch
// for the one after it are the next epoch's, not the run's.
double ReadsPerChunk(const BenchResult& r) {
  if (r.dataset.chunks <= 0 || r.dataset.samples <= 0) return 0;
  const double epochs = static_cast<double>(r.images) / static_cast<double>(r.dataset.samples);
  const auto reads = static_cast<double>(r.stats.chunk_reads - r.chunk_reads_next_epoch);
  return epochs > 0 ? reads / (epochs * r.dataset.chunks) : 0;
}

double HitRate(const LoaderStats& s) {
  const uint64_t lookups = s.cache_hits + s.cache_misses;
  return lookups > 0 ? static_cast<double>(s.cache_hits) / lookups : 0;
}

double WaitShare(const BenchResult& r) {
  return r.seconds > 0 ? std::max(0.0, r.stats.wait_seconds - r.end_wait_seconds) / r.seconds : 0;
}

// Cores kept busy: well under `threads` while Next() waits means the machine (shared, or fewer
// free cores than threads) or a serial stage held the pipeline back.
double CoresUsed(const BenchResult& r) { return r.seconds > 0 ? r.cpu_seconds / r.seconds : 0; }

}  // namespace h5feed::bench
