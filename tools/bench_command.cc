// `h5feed bench FILE.h5`: what the Loader delivers on this file, with these settings, on this
// machine. It consumes batches as fast as it can (doing nothing with them but touching one byte,
// so a trainer would be slower, never faster) and reports the rate beside what it cost: chunk
// reads against chunks, cache hits and misses, bytes read and decoded, how long Next() waited,
// and peak resident memory. bench/loader_bench.py runs it beside the machine's ceilings and the
// DataLoader-over-h5py loaders people use today (bench/README.md).

#include <sched.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "conversion_runner.h"
#include "exit_codes.h"
#include "h5feed/error.h"
#include "h5feed/loader.h"
#include "interrupt_guard.h"
#include "pipeline/slot_layout.h"
#include "progress_bar.h"
#include "sampler/shuffle_quality.h"
#include "units.h"

namespace h5feed::cli {
namespace {

// The shuffle-quality figure is measured on the first epoch's order, kept while it is read.
// Capped so that keeping it (8 bytes a sample) never shows in the peak RSS being measured: at
// most 8 MiB, and a prefix of a million samples measures an order as well as all of it.
constexpr size_t kMaxOrderSamples = size_t{1} << 20;

struct BenchFlags {
  std::string path;
  std::string sampler = "chunks:8";
  int64_t batch = 256;
  int threads = 0;
  int64_t cache_mb = 512;
  int slots = 4;
  int64_t epochs = 1;
  uint64_t seed = 0;
  bool normalize = false;
  bool no_verify = false;
  bool json = false;
};

struct BenchResult {
  DatasetInfo dataset;
  LoaderStats stats;
  int threads = 0;  // as resolved (0 = all cores -> the count)
  int64_t epochs_done = 0;
  int64_t images = 0;
  int64_t pixel_bytes = 0;  // uint8 pixels delivered
  double open_seconds = 0;
  double seconds = 0;      // from the first SetEpoch to the end of the last epoch
  double cpu_seconds = 0;  // user + system time of all threads over `seconds`
  double peak_rss_mib = 0;
  double slot_mib = 0;  // slots x one slot's bytes (pipeline/slot_layout.h)
  std::optional<ShuffleQuality> quality;
  bool interrupted = false;
};

// Peak resident memory of this process, in MiB. Linux's VmHWM belongs to this program's
// address space alone; getrusage's ru_maxrss is kept across fork and execve, so a bench started
// by a large parent (a Python script holding arrays) would report the parent's peak instead.
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

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// What threads = 0 resolves to: the cores this process may run on (TBB's default arena
// honours the affinity mask too, so `taskset -c 0` benches one thread).
int UsableCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

LoaderOptions MakeOptions(const BenchFlags& flags) {
  LoaderOptions options;
  options.batch_size = flags.batch;
  options.sampler = SamplerOptions::Parse(flags.sampler);
  options.seed = flags.seed;
  options.cache_bytes = flags.cache_mb << 20;
  options.slots = flags.slots;
  options.threads = flags.threads;
  options.normalize = flags.normalize;
  options.verify_checksums = !flags.no_verify;
  return options;
}

BenchResult RunBench(const BenchFlags& flags, const std::atomic<bool>& cancel) {
  using Clock = std::chrono::steady_clock;
  BenchResult result;
  const LoaderOptions options = MakeOptions(flags);
  const auto open_start = Clock::now();
  Loader loader = Loader::Open(flags.path, options);
  result.open_seconds = std::chrono::duration<double>(Clock::now() - open_start).count();
  result.dataset = loader.dataset();
  result.threads = flags.threads > 0 ? flags.threads : UsableCores();
  const pipeline::SlotLayout layout(flags.batch, result.dataset.image_shape, flags.normalize);
  result.slot_mib = static_cast<double>(layout.bytes()) * flags.slots / (1 << 20);

  const int64_t total = flags.epochs * loader.samples_per_epoch();
  ProgressBar bar("reading", "img", total, ProgressBar::StderrIsTerminal());
  std::vector<int64_t> order;
  order.reserve(
      std::min<size_t>(static_cast<size_t>(loader.samples_per_epoch()), kMaxOrderSamples));
  // Reading one byte of every batch is the least a consumer does; the volatile sink keeps the
  // compiler from proving that nothing uses the batches.
  volatile unsigned sink = 0;
  const double cpu_start = CpuSeconds();
  const auto start = Clock::now();
  for (int64_t epoch = 0; epoch < flags.epochs && !cancel; ++epoch) {
    loader.SetEpoch(epoch);
    while (std::optional<Batch> batch = loader.Next()) {
      sink = sink + batch->images()[0];
      if (flags.normalize) sink = sink + static_cast<unsigned>(batch->normalized_images()[0]);
      result.images += batch->size();
      result.pixel_bytes += static_cast<int64_t>(batch->images().size());
      if (epoch == 0 && order.size() < kMaxOrderSamples) {
        std::span<const int64_t> rows = batch->indices();
        rows = rows.first(std::min(rows.size(), kMaxOrderSamples - order.size()));
        order.insert(order.end(), rows.begin(), rows.end());
      }
      bar.Update(result.images, 0);
      if (cancel) break;
    }
    if (!cancel) ++result.epochs_done;
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.cpu_seconds = CpuSeconds() - cpu_start;
  bar.Finish();
  result.interrupted = cancel;
  result.stats = loader.stats();
  result.peak_rss_mib = PeakRssMib();
  if (order.size() >= 2) {
    result.quality = MeasureShuffleQuality(order, result.dataset.chunk_samples, flags.batch);
  }
  return result;
}

double Rate(double amount, double seconds) { return seconds > 0 ? amount / seconds : 0; }

// Chunk reads per chunk per epoch: 1.00 when every chunk is read once an epoch.
double ReadsPerChunk(const BenchResult& r) {
  const double epochs = r.epochs_done > 0 ? static_cast<double>(r.epochs_done) : 1.0;
  return r.dataset.chunks > 0 ? r.stats.chunk_reads / (epochs * r.dataset.chunks) : 0;
}

double HitRate(const LoaderStats& s) {
  const uint64_t lookups = s.cache_hits + s.cache_misses;
  return lookups > 0 ? static_cast<double>(s.cache_hits) / lookups : 0;
}

std::string ToJson(const BenchFlags& flags, const BenchResult& r) {
  nlohmann::ordered_json j;
  j["file"] = flags.path;
  j["samples"] = r.dataset.samples;
  j["image_shape"] = {r.dataset.image_shape.height, r.dataset.image_shape.width,
                      r.dataset.image_shape.channels};
  j["chunk_samples"] = r.dataset.chunk_samples;
  j["chunks"] = r.dataset.chunks;
  j["sampler"] = MakeOptions(flags).sampler.ToString();
  j["batch"] = flags.batch;
  j["threads"] = r.threads;
  j["cache_mb"] = flags.cache_mb;
  j["slots"] = flags.slots;
  j["seed"] = flags.seed;
  j["normalize"] = flags.normalize;
  j["verify_checksums"] = !flags.no_verify;
  j["epochs"] = r.epochs_done;
  j["images"] = r.images;
  j["batches"] = r.stats.batches;
  j["open_seconds"] = r.open_seconds;
  j["seconds"] = r.seconds;
  j["images_per_s"] = Rate(static_cast<double>(r.images), r.seconds);
  j["mb_per_s"] = Rate(static_cast<double>(r.pixel_bytes) / 1e6, r.seconds);
  j["chunk_reads"] = r.stats.chunk_reads;
  j["chunk_reads_per_chunk"] = ReadsPerChunk(r);
  j["cache_hits"] = r.stats.cache_hits;
  j["cache_misses"] = r.stats.cache_misses;
  j["cache_hit_rate"] = HitRate(r.stats);
  j["bytes_read"] = r.stats.bytes_read;
  j["bytes_decoded"] = r.stats.bytes_decoded;
  j["wait_seconds"] = r.stats.wait_seconds;
  j["wait_share"] = r.seconds > 0 ? r.stats.wait_seconds / r.seconds : 0;
  // Cores kept busy: well under `threads` while Next() waits means the machine (shared, or
  // fewer free cores than threads) or a serial stage held the pipeline back.
  j["cpu_cores_used"] = r.seconds > 0 ? r.cpu_seconds / r.seconds : 0;
  j["peak_rss_mb"] = r.peak_rss_mib;
  j["slot_mb"] = r.slot_mib;
  if (r.quality) {
    j["shuffle_quality"] = r.quality->delta_entropy_ratio;
    j["chunks_per_batch"] = r.quality->chunks_per_batch;
  }
  j["interrupted"] = r.interrupted;
  return j.dump() + "\n";
}

std::string Format(const char* format, double a, double b = 0, double c = 0) {  // <= 3 numbers
  char text[160];
  std::snprintf(text, sizeof text, format, a, b, c);
  return text;
}

std::string ToText(const BenchFlags& flags, const BenchResult& r) {
  const DatasetInfo& d = r.dataset;
  const LoaderStats& s = r.stats;
  std::string out;
  out += "bench " + flags.path + ": " + FormatCount(d.samples) + " images " +
         std::to_string(d.image_shape.height) + "x" + std::to_string(d.image_shape.width) + "x" +
         std::to_string(d.image_shape.channels) + " in " + FormatCount(d.chunks) + " chunks of " +
         FormatCount(d.chunk_samples) + " (opened in " + FormatDuration(r.open_seconds) + ")\n";
  out += "  sampler " + MakeOptions(flags).sampler.ToString() + ", batch " +
         FormatCount(flags.batch) + ", " + std::to_string(r.threads) +
         (r.threads == 1 ? " thread, cache " : " threads, cache ") +
         FormatBytes(static_cast<uint64_t>(flags.cache_mb) << 20) + ", " +
         std::to_string(flags.slots) + " slots (" +
         FormatBytes(static_cast<uint64_t>(r.slot_mib * (1 << 20))) + "), " +
         (flags.normalize ? "float32 NCHW" : "uint8 NHWC") +
         (flags.no_verify ? ", checksums not verified" : "") + "\n";
  out += "  " + std::to_string(r.epochs_done) + (r.epochs_done == 1 ? " epoch, " : " epochs, ") +
         FormatCount(r.images) + " images in " + FormatDuration(r.seconds) + ": " +
         FormatCount(static_cast<int64_t>(Rate(static_cast<double>(r.images), r.seconds))) +
         " images/s, " + Format("%.1f MB/s of uint8 pixels", Rate(r.pixel_bytes / 1e6, r.seconds)) +
         "\n";
  out += "  chunk reads " + FormatCount(static_cast<int64_t>(s.chunk_reads)) +
         Format(" (%.2f per chunk per epoch); cache ", ReadsPerChunk(r)) +
         FormatCount(static_cast<int64_t>(s.cache_hits)) + " hits, " +
         FormatCount(static_cast<int64_t>(s.cache_misses)) + " misses" +
         Format(" (%.1f%% hit rate)", 100 * HitRate(s)) + "\n";
  out += "  read " + FormatBytes(s.bytes_read) + ", decoded " + FormatBytes(s.bytes_decoded) +
         Format("; Next() waited %.0f%% of the time; %.1f cores busy",
                100 * Rate(s.wait_seconds, r.seconds), Rate(r.cpu_seconds, r.seconds)) +
         "\n";
  if (r.quality) {
    out += Format("  shuffle quality %.2f (0 = file order, 1 = random), %.1f chunks per batch\n",
                  r.quality->delta_entropy_ratio, r.quality->chunks_per_batch);
  }
  out += "  peak RSS " + FormatBytes(static_cast<uint64_t>(r.peak_rss_mib * (1 << 20))) + "\n";
  return out;
}

// Rejects a bad --sampler while parsing, so it is a usage error like any other bad option.
CLI::Validator SamplerValidator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          SamplerOptions::Parse(text);
          return {};
        } catch (const Error& e) {
          return e.what();
        }
      },
      "SAMPLER", "sampler");
}

}  // namespace

void AddBenchCommand(CLI::App& app, Runner& run) {
  auto flags = std::make_shared<BenchFlags>();
  CLI::App* command = app.add_subcommand(
      "bench",
      "Measure what the reader delivers on FILE with the given sampler, cache, threads and "
      "batch size: images/s and MB/s of uint8 pixels (MB = 10^6 bytes), chunk reads per chunk "
      "per epoch (1.00 = each chunk read once), cache hit rate, bytes read and decompressed, "
      "the share of time Next() waited, the shuffle quality of the order, and peak resident "
      "memory. Batches are consumed as fast as they come and otherwise unused, so a trainer "
      "gets at most this rate. To measure the reader rather than the disk, read FILE once "
      "first (the page cache then holds it). bench/loader_bench.py compares it with the "
      "machine's ceilings and with PyTorch DataLoader over h5py");
  command
      ->add_option("FILE", flags->path,
                   "The HDF5 file to read (h5feed's, or any 4-D uint8 image dataset)")
      ->required();
  command
      ->add_option("--sampler", flags->sampler,
                   "sequential | random | chunks[:W] | quasi[:W]. chunks:W reads each chunk "
                   "once per epoch when the cache holds W chunks plus the prefetch; random "
                   "reads a chunk up to K times unless the whole file fits the cache")
      ->check(SamplerValidator())
      ->capture_default_str();
  command->add_option("--batch", flags->batch, "Images per batch")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->add_option("--threads", flags->threads, "Worker threads (0 = all cores)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  command
      ->add_option("--cache-mb", flags->cache_mb,
                   "Decompressed-chunk cache in MiB. Resident memory is about this plus "
                   "slots x batch bytes")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 30))
      ->capture_default_str();
  command
      ->add_option("--slots", flags->slots,
                   "Batch buffers: the prefetch depth (each holds one batch)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  command->add_option("--epochs", flags->epochs, "Epochs to read (each in its own order)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->add_option("--seed", flags->seed, "Seed of the epoch orders")->capture_default_str();
  command->add_flag("--normalize", flags->normalize,
                    "Deliver float32 NCHW batches, (x/255 - mean)/std with ImageNet's mean and "
                    "std, computed on the CPU (what a trainer without a GPU stage gets)");
  command->add_flag("--no-verify", flags->no_verify,
                    "Skip the per-chunk checksum (faster; corruption then goes unnoticed)");
  command->add_flag("--json", flags->json,
                    "Print one JSON object (for scripts) instead of text: images_per_s, "
                    "mb_per_s, chunk_reads, chunks, cache_hits, cache_misses, peak_rss_mb "
                    "(MiB), epochs, images, seconds, sampler, batch, threads, cache_mb, ...");
  command->callback([flags, &run] {
    run = [flags] {
      InterruptGuard interrupt;
      try {
        BenchResult result = RunBench(*flags, interrupt.flag());
        std::cout << (flags->json ? ToJson(*flags, result) : ToText(*flags, result)) << std::flush;
        if (result.interrupted) {
          std::fprintf(stderr, "h5feed bench: interrupted; the figures cover what was read\n");
          return interrupt.exit_code();
        }
        return kExitOk;
      } catch (const std::exception& e) {
        return ReportError("bench", e);
      }
    };
  });
}

}  // namespace h5feed::cli
