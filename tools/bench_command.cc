// `h5feed bench FILE.h5`: what the Loader delivers on this file, with these settings, on this
// machine, beside the machine's ceilings for the file measured in the same run. It consumes
// batches as fast as it can (touching one byte of each), or as a trainer taking --step-ms per
// batch would, and reports the rate beside what it cost: chunk reads against chunks, cache hits
// and misses, bytes read and decoded, how long Next() waited, the order's shuffle quality next
// to the `random` sampler's, and peak resident memory. `h5feed bench sweep` (bench/
// sweep_command.cc) runs it over a grid of settings; docs/bench.md defines every figure.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/augment_cost.h"
#include "bench/augment_spec.h"
#include "bench/bench_run.h"
#include "bench/ceilings.h"
#include "bench/disk_rate.h"
#include "bench/page_cache.h"
#include "bench/sweep_command.h"
#include "byte_size.h"
#include "command_error.h"
#include "commands.h"
#include "exit_codes.h"
#include "file_locking_option.h"
#include "h5feed/error.h"
#include "h5feed/location.h"
#include "h5feed/remote_options.h"
#include "h5feed/sampler_options.h"
#include "input_paths.h"
#include "interrupt_guard.h"
#include "number_checks.h"
#include "parsed_option.h"
#include "progress_bar.h"
#include "remote_options_flags.h"
#include "reports/report_json.h"
#include "units.h"

namespace h5feed::cli {
namespace {

struct BenchFlags {
  Location input;  // FILE; settings.path is its text
  bench::BenchSettings settings;
  bool no_verify = false;
  bool no_map = false;
  bool full_jpeg_decode = false;
  bool no_open_probe = false;
  bool cold = false;
  bool no_ceilings = false;
  bool json = false;
};

struct BenchReport {
  bench::BenchResult result;
  std::optional<bench::AugmentCost> augment;  // with --augment, unless --no-ceilings
  std::optional<bench::Eviction> eviction;    // with --cold
  std::optional<bench::Ceilings> ceilings;    // unless --no-ceilings
  std::optional<bench::DiskRate> disk;        // with --cold, unless --no-ceilings
};

BenchReport Measure(const BenchFlags& flags, const std::atomic<bool>& cancel) {
  BenchReport report;
  if (flags.cold) report.eviction = bench::EvictFromPageCache(flags.settings.path);
  ProgressBar bar("reading", "img", 0, !flags.json && ProgressBar::StderrIsTerminal());
  report.result = bench::RunBench(flags.settings, cancel,
                                  [&bar](int64_t done, int64_t) { bar.Update(done, 0); });
  bar.Finish();
  // After the run: measuring reads the file, which would warm the cache a cold run needs.
  // A remote file's ceiling is its link, which bench measures as the rate it read at.
  // A signal that came after the run's last batch skips them too (the run's figures are whole).
  if (!flags.no_ceilings && !report.result.interrupted && !cancel && !flags.input.remote()) {
    bench::CeilingOptions options;
    options.threads = report.result.threads;
    options.images_dataset = flags.settings.images;
    try {
      // First: the device's rate needs the file out of the page cache, which the page-cache
      // ceiling then fills.
      if (flags.cold) report.disk = bench::MeasureDiskRate(flags.settings.path);
      report.ceilings = bench::MeasureCeilings(flags.settings.path, options);
      if (!flags.settings.augment.empty() && !cancel) {
        report.augment = bench::MeasureAugmentCost(flags.settings.path, flags.settings.images,
                                                   bench::ParseAugmentSpec(flags.settings.augment),
                                                   report.result.threads, flags.settings.batch,
                                                   flags.settings.seed);
      }
    } catch (const Error& e) {  // the run's own figures are still worth printing
      std::fprintf(stderr, "h5feed bench: warning: the ceilings were not measured: %s\n", e.what());
    }
  }
  return report;
}

// Stored bytes read from the file per second (MB = 10^6 bytes): from the disk, on a cold run.
double ReadMbPerSecond(const bench::BenchResult& r) {
  return r.seconds > 0 ? static_cast<double>(r.stats.bytes_read) / 1e6 / r.seconds : 0;
}

std::string SamplerName(const BenchFlags& flags) {
  return SamplerOptions::Parse(flags.settings.sampler).ToString();
}

std::string ToJson(const BenchFlags& flags, const BenchReport& report) {
  const bench::BenchResult& r = report.result;
  const bench::BenchSettings& s = flags.settings;
  ReportValue::Object j;
  auto put = [&j](const char* key, ReportValue value) { j.emplace_back(key, std::move(value)); };
  put("file", DisplayLocation(s.path));
  put("samples", r.dataset.samples);
  put("image_shape", ReportValue::List{r.dataset.image_shape.height, r.dataset.image_shape.width,
                                       r.dataset.image_shape.channels});
  put("chunk_samples", r.dataset.chunk_samples);
  put("chunks", r.dataset.chunks);
  put("sampler", SamplerName(flags));
  put("batch", s.batch);
  put("threads", r.threads);
  put("cache_mb", s.cache_mb);
  put("slots", s.slots);
  put("seed", s.seed);
  put("rank", s.rank);
  put("world_size", s.world_size);
  put("normalize", s.normalize || !s.augment.empty());
  put("augment", s.augment);
  put("fields", ReportValue::List(s.fields.begin(), s.fields.end()));
  put("stream_fields", s.stream_fields);
  put("verify_checksums", s.verify_checksums);
  put("map_file", s.map_file);
  put("direct", s.direct);
  put("step_ms", s.step_ms);
  put("epochs", r.epochs_done);
  put("min_seconds", s.min_seconds);
  put("images", r.images);
  put("batches", r.stats.batches);
  put("open_seconds", r.open_seconds);
  put("seconds", r.seconds);
  put("short_run", bench::IsShortRun(r));
  put("images_per_s", bench::ImagesPerSecond(r));
  put("mb_per_s", bench::PixelMbPerSecond(r));
  put("chunk_reads", r.stats.chunk_reads);
  put("chunk_reads_per_chunk", bench::ReadsPerChunk(r));
  put("chunk_reads_next_epoch", r.chunk_reads_next_epoch);
  put("cache_hits", r.stats.cache_hits);
  put("cache_misses", r.stats.cache_misses);
  put("cache_hit_rate", bench::HitRate(r.stats));
  put("bytes_read", r.stats.bytes_read);
  put("bytes_decoded", r.stats.bytes_decoded);
  put("read_mb_per_s", ReadMbPerSecond(r));
  put("wait_seconds", r.stats.wait_seconds);
  put("wait_share", bench::WaitShare(r));
  put("consumer_seconds", r.consumer_seconds);
  put("cpu_cores_used", bench::CoresUsed(r));
  put("peak_rss_mb", r.peak_rss_mib);
  put("slot_mb", r.slot_mib);
  if (r.quality && r.random_quality) {
    put("shuffle_quality", r.quality->delta_entropy_ratio);
    put("delta_entropy_bits", r.quality->delta_entropy_bits);
    put("chunks_per_batch", r.quality->chunks_per_batch);
    put("random_shuffle_quality", r.random_quality->delta_entropy_ratio);
    put("random_delta_entropy_bits", r.random_quality->delta_entropy_bits);
    put("random_chunks_per_batch", r.random_quality->chunks_per_batch);
  }
  if (r.label_mixing) {
    const sampler::LabelMixing& m = *r.label_mixing;
    put("classes_per_batch", m.order.classes_per_batch);
    put("random_classes_per_batch", m.random.classes_per_batch);
    put("label_entropy_bits", m.order.entropy_bits);
    put("random_label_entropy_bits", m.random.entropy_bits);
    put("label_entropy_ratio", m.entropy_ratio);
    put("few_classes_per_batch", sampler::MixesTooFewClasses(m));
  }
  if (report.eviction) {
    put("cold", true);
    put("resident_before_cold", report.eviction->before.fraction());
    put("resident_after_cold", report.eviction->after.fraction());
    put("cold_took_effect", report.eviction->took_effect());
  } else {
    put("cold", false);
  }
  put("cold_each_epoch", s.cold_each_epoch);
  if (s.cold_each_epoch) {
    put("cold_drops", r.cold_drops);
    put("most_resident_after_drop", r.most_resident_after_drop);
  }
  if (report.disk) {
    put("disk_mb_per_s", report.disk->mb_per_s);
    put("disk_readers", report.disk->readers);
    put("disk_cold", report.disk->cold);
    put("fraction_of_disk", bench::FractionOf(ReadMbPerSecond(r), report.disk->mb_per_s));
  }
  if (report.ceilings) {
    const bench::Ceilings& c = *report.ceilings;
    put("page_cache_mb_per_s", c.page_cache_mb_per_s);
    put("compression_ratio", c.compression_ratio);
    put("zstd_mb_per_s", c.zstd_mb_per_s);
    put("memcpy_mb_per_s", c.memcpy_mb_per_s);
    put("ceiling_mb_per_s", c.PixelMbPerSecond());
    put("ceiling", c.Binding());
    put("fraction_of_ceiling", bench::FractionOf(bench::PixelMbPerSecond(r), c.PixelMbPerSecond()));
    put("fraction_of_memcpy", bench::FractionOf(bench::PixelMbPerSecond(r), c.memcpy_mb_per_s));
    if (c.decodes_jpeg()) {
      // Decoding binds a file of JPEGs: its ceiling and the fraction reached, in images/s.
      put("jpeg_decode_images_per_s", c.jpeg_images_per_s);
      put("jpeg_share", c.jpeg_share);
      put("ceiling_images_per_s", c.JpegImagesPerSecond());
      put("ceiling", "jpeg decode x " + std::to_string(c.threads));
      put("fraction_of_ceiling",
          bench::FractionOf(bench::ImagesPerSecond(r), c.JpegImagesPerSecond()));
    }
  }
  if (report.augment) {
    const bench::AugmentCost& a = *report.augment;
    put("augment_images_per_s", a.images_per_s);
    put("augment_output_mb_per_s", a.output_mb_per_s);
    put("augment_output_shape", ReportValue::List{a.channels, a.out_height, a.out_width});
    put("fraction_of_augment", bench::FractionOf(bench::ImagesPerSecond(r), a.images_per_s));
  }
  put("complete", !r.interrupted && !r.time_limited);
  put("interrupted", r.interrupted);
  // The Loader's own reports, as Python's Loader.dataset and Loader.stats() return them.
  put("dataset", DatasetValue(r.dataset));
  put("stats", StatsValue(r.stats));
  return reports::ToJsonLine(j);
}

std::string Format(const char* format, double a, double b = 0, double c = 0) {  // <= 3 numbers
  char text[200];
  std::snprintf(text, sizeof text, format, a, b, c);
  return text;
}

// "attrs,caption": --fields as given.
std::string JoinedFields(const std::vector<std::string>& fields) {
  std::string text;
  for (const std::string& field : fields) text += (text.empty() ? "" : ",") + field;
  return text;
}

std::string ToText(const BenchFlags& flags, const BenchReport& report) {
  const bench::BenchResult& r = report.result;
  const bench::BenchSettings& f = flags.settings;
  const DatasetInfo& d = r.dataset;
  const LoaderStats& s = r.stats;
  std::string out;
  const std::string shape = std::to_string(d.image_shape.height) + "x" +
                            std::to_string(d.image_shape.width) + "x" +
                            std::to_string(d.image_shape.channels);
  out += "bench " + DisplayLocation(f.path) + ": " + FormatCount(d.samples) +
         (d.own_size ? " images at their own size (up to " + shape + ")" : " images " + shape) +
         " in " + CountOf(d.chunks, "chunk") + (d.own_size ? " of up to " : " of ") +
         FormatCount(d.chunk_samples) + " (opened in " + FormatDuration(r.open_seconds) + ")\n";
  out +=
      "  sampler " + SamplerName(flags) +
      (f.world_size > 1 ? ", rank " + std::to_string(f.rank) + " of " + std::to_string(f.world_size)
                        : std::string()) +
      ", batch " + FormatCount(f.batch) + ", " + std::to_string(r.threads) +
      (r.threads == 1 ? " thread, cache " : " threads, cache ") +
      ToString(ByteSize(static_cast<uint64_t>(f.cache_mb) << 20)) + ", " + std::to_string(f.slots) +
      " slots (" + ToString(ByteSize(static_cast<int64_t>(r.slot_mib * (1 << 20)))) + "), " +
      (f.normalize || !f.augment.empty() ? "float32 NCHW" : "uint8 NHWC") +
      (f.augment.empty() ? "" : ", augment " + f.augment) +
      (f.fields.empty() ? "" : ", fields " + JoinedFields(f.fields)) +
      (f.stream_fields ? " (streamed)" : "") +
      (f.verify_checksums ? "" : ", checksums not verified") + (f.map_file ? "" : ", pread only") +
      (f.direct ? ", O_DIRECT" : "") + "\n";
  if (report.eviction) out += "  " + report.eviction->Describe() + "\n";
  if (f.cold_each_epoch && r.cold_drops > 0) {
    out += "  dropped again before " +
           (r.cold_drops == 1 ? std::string("the later epoch")
                              : "each of the " + std::to_string(r.cold_drops) + " later epochs") +
           Format(" (at most %.0f%% of the file left resident)", 100 * r.most_resident_after_drop) +
           (r.most_resident_after_drop > bench::Eviction::kColdThreshold
                ? ": some epochs were not read cold"
                : "") +
           "\n";
  }
  out += "  " + std::to_string(r.epochs_done) + (r.epochs_done == 1 ? " epoch, " : " epochs, ") +
         FormatCount(r.images) + " images in " + FormatDuration(r.seconds) +
         (r.time_limited ? " (stopped by --max-seconds)" : "") + ": " +
         FormatCount(static_cast<int64_t>(bench::ImagesPerSecond(r))) + " images/s, " +
         Format("%.1f MB/s of uint8 pixels", bench::PixelMbPerSecond(r)) + "\n";
  if (bench::IsShortRun(r)) {
    out += Format("  timed over only %.1f ms", r.seconds * 1000) +
           ", too short for a steady rate (start-up and scheduling weigh as much as the "
           "reading): give --min-seconds 1\n";
  }
  out += "  chunk reads " + FormatCount(static_cast<int64_t>(s.chunk_reads)) +
         Format(" (%.2f per chunk per epoch", bench::ReadsPerChunk(r)) +
         (r.chunk_reads_next_epoch > 0
              ? ", " + FormatCount(static_cast<int64_t>(r.chunk_reads_next_epoch)) +
                    " of them ahead for the next epoch"
              : std::string()) +
         "); cache " + FormatCount(static_cast<int64_t>(s.cache_hits)) + " hits, " +
         FormatCount(static_cast<int64_t>(s.cache_misses)) + " misses" +
         Format(" (%.1f%% hit rate)", 100 * bench::HitRate(s)) + "\n";
  // Without --step-ms the loop asks for the next batch at once, so Next() waits nearly all
  // the time by construction: a share then would read as a fault. --step-ms gives one that
  // means something (the simulated trainer's line below).
  out += "  read " + ToString(ByteSize(s.bytes_read)) + ", decoded " +
         ToString(ByteSize(s.bytes_decoded)) +
         (f.step_ms > 0 ? Format("; Next() waited %.0f%% of the time", 100 * bench::WaitShare(r))
                        : std::string("; batches taken as they came (no --step-ms), so the "
                                      "reader set the pace")) +
         Format("; %.1f cores busy", bench::CoresUsed(r)) + "\n";
  if (flags.input.remote() && r.seconds > 0) {
    out += Format(
        "  remote: read %.1f MB/s of stored bytes (from the network, or the spill "
        "folder); a remote file's ceiling is its link (docs/remote.md)\n",
        static_cast<double>(s.bytes_read) / 1e6 / r.seconds);
  }
  if (f.step_ms > 0) {
    out += Format(
        "  simulated trainer: %.1f ms per batch; it waited for data %.0f%% of the "
        "time (0%% = the reader kept up)\n",
        f.step_ms, 100 * bench::WaitShare(r));
  }
  if (r.quality && r.random_quality) {
    out += Format(
        "  shuffle quality %.2f (0 = file order, 1 = random; the random sampler: "
        "%.2f)\n",
        r.quality->delta_entropy_ratio, r.random_quality->delta_entropy_ratio);
    out += Format("  %.1f distinct chunks per batch (the random sampler: %.1f)\n",
                  r.quality->chunks_per_batch, r.random_quality->chunks_per_batch);
  }
  if (r.label_mixing) {
    const sampler::LabelMixing& m = *r.label_mixing;
    out += Format("  %.1f classes per batch, label entropy %.2f bits (the random sampler: ",
                  m.order.classes_per_batch, m.order.entropy_bits) +
           Format("%.1f, %.2f bits): %.2f of its entropy", m.random.classes_per_batch,
                  m.random.entropy_bits, m.entropy_ratio) +
           (sampler::MixesTooFewClasses(m)
                ? ", below the bar of " + Format("%.2f", sampler::kMinEntropyRatio) +
                      ": batches mix few classes (docs/reader.md)"
                : std::string()) +
           "\n";
  }
  if (report.disk) {
    const bench::DiskRate& disk = *report.disk;
    out += Format("  disk: %.0f MB/s for this file with %.0f readers at once (dd bs=16M over its ",
                  disk.mb_per_s, disk.readers) +
           (disk.cold ? "parts, page cache dropped first)"
                      : "parts; the drop did not take effect: the page cache's rate)") +
           Format("; the run read %.0f MB/s of stored bytes: %.2f of it\n", ReadMbPerSecond(r),
                  bench::FractionOf(ReadMbPerSecond(r), disk.mb_per_s));
  }
  if (report.ceilings) {
    const bench::Ceilings& c = *report.ceilings;
    out += Format("  ceilings: page cache %.0f MB/s (x %.2f compression ratio)",
                  c.page_cache_mb_per_s, c.compression_ratio);
    if (c.compressed())
      out += Format(", zstd %.0f MB/s x %.0f threads", c.zstd_mb_per_s, c.threads);
    if (c.decodes_jpeg()) {
      out += Format(", TurboJPEG %.0f images/s x %.0f threads", c.jpeg_images_per_s, c.threads);
    }
    out += Format(", memcpy %.0f MB/s\n", c.memcpy_mb_per_s);
    if (c.decodes_jpeg()) {
      out += Format(
                 "  reached %.2f of the JPEG decode ceiling (%.0f images/s: TurboJPEG's whole "
                 "decode x %.0f threads",
                 bench::FractionOf(bench::ImagesPerSecond(r), c.JpegImagesPerSecond()),
                 c.JpegImagesPerSecond(), c.threads) +
             (c.jpeg_share < 1 ? Format(", %.0f%% of the rows JPEG", 100 * c.jpeg_share) : "") +
             ")\n";
    } else {
      out += "  reached " +
             Format("%.2f of the ceiling (%.0f MB/s, ",
                    bench::FractionOf(bench::PixelMbPerSecond(r), c.PixelMbPerSecond()),
                    c.PixelMbPerSecond()) +
             c.Binding() +
             Format("), %.2f of memcpy\n",
                    bench::FractionOf(bench::PixelMbPerSecond(r), c.memcpy_mb_per_s));
    }
  }
  if (report.augment) {
    const bench::AugmentCost& a = *report.augment;
    out += "  augmentation " + f.augment + " alone (to " + std::to_string(a.out_height) + "x" +
           std::to_string(a.out_width) + "x" + std::to_string(a.channels) +
           " float32): " + FormatCount(static_cast<int64_t>(a.images_per_s)) + " images/s on " +
           std::to_string(a.threads) +
           Format(" threads (%.0f MB/s out); reached %.2f of it\n", a.output_mb_per_s,
                  bench::FractionOf(bench::ImagesPerSecond(r), a.images_per_s));
  }
  out +=
      "  peak RSS " + ToString(ByteSize(static_cast<int64_t>(r.peak_rss_mib * (1 << 20)))) + "\n";
  return out;
}

}  // namespace

void AddBenchCommand(CLI::App& app, Runner& run) {
  auto flags = std::make_shared<BenchFlags>();
  bench::BenchSettings& s = flags->settings;
  CLI::App* command = app.add_subcommand(
      "bench",
      "Measure what the reader delivers on FILE with the given sampler, cache, threads and "
      "batch size: images/s and MB/s of uint8 pixels (MB = 10^6 bytes), chunk reads per chunk "
      "per epoch (1.00 = each chunk read once), cache hit rate, bytes read and decompressed, "
      "the share of time Next() waited, the shuffle quality of the order and the classes per "
      "batch and label entropy of its batches beside the random sampler's, peak resident "
      "memory, and the machine's ceilings for FILE measured after "
      "the run (page-cache read rate, zstd decompression rate x threads, memcpy) with the "
      "fraction reached. Batches are consumed as fast as they come (or every --step-ms), so a "
      "trainer gets at most this rate. 'h5feed bench sweep' runs a grid of settings; "
      "docs/bench.md defines every figure");
  command
      ->add_option("FILE", flags->input,
                   "The HDF5 file to read (h5feed's, or any uint8 image dataset): a "
                   "path, or an http(s):// or s3:// URL (docs/remote.md)")
      ->check(ExistingInput(InputKind::kFileOrUrl));
  command->add_option("--images", s.images,
                      "The image dataset of a file that holds several (default: 'images', else "
                      "the only 4-D uint8 dataset, else the only 3-D one), as the Loader's "
                      "images_dataset names it; the run and its ceilings read that one");
  command
      ->add_option("--sampler", s.sampler,
                   "sequential | random | chunks[:W] | quasi[:W]. chunks:W reads each chunk "
                   "once per epoch when the cache holds W chunks plus the prefetch; random "
                   "reads a chunk up to K times unless the whole file fits the cache")
      ->check(ParsedBy(SamplerOptions::Parse, "SAMPLER"))  // a usage error like any other
      ->capture_default_str();
  command->add_option("--batch", s.batch, "Images per batch")
      ->check(AtLeast(1))
      ->capture_default_str();
  command->add_option("--threads", s.threads, "Worker threads (0 = all cores)")
      ->check(AtLeast(0))
      ->capture_default_str();
  command
      ->add_option("--cache-mb", s.cache_mb,
                   "Decompressed-chunk cache in MiB. Resident memory is about this plus "
                   "slots x batch bytes")
      ->check(InRange(0, double(int64_t{1} << 30)))
      ->capture_default_str();
  command
      ->add_option("--slots", s.slots, "Batch buffers: the prefetch depth (each holds one batch)")
      ->check(InRange(1, 1024))
      ->capture_default_str();
  command->add_option("--epochs", s.epochs, "Epochs to read (each in its own order)")
      ->check(AtLeast(1))
      ->capture_default_str();
  command
      ->add_option("--min-seconds", s.min_seconds,
                   "Read whole epochs beyond --epochs until at least this many seconds are "
                   "timed (0 = exactly --epochs): an epoch of a small file takes milliseconds, "
                   "too short for a steady rate. With --cold, give --cold-each-epoch, so that "
                   "the repeated epochs are read cold too")
      ->check(InRange(0, 1e9))
      ->capture_default_str();
  command->add_option("--seed", s.seed, "Seed of the epoch orders")
      ->check(WholeUint64())
      ->capture_default_str();
  command
      ->add_option("--rank", s.rank,
                   "Read this rank's shard of FILE (of --world-size): one of several processes "
                   "reading it at once, as one per GPU of a node")
      ->check(AtLeast(0))
      ->capture_default_str();
  command->add_option("--world-size", s.world_size, "Processes sharing FILE (see --rank)")
      ->check(AtLeast(1))
      ->capture_default_str();
  command
      ->add_option("--step-ms", s.step_ms,
                   "Simulate a trainer that spends this long on each batch (sleeping, as a CPU "
                   "thread waiting on its GPU does); the report then says which share of the "
                   "time it waited for data. 0 = consume as fast as batches come")
      ->check(InRange(0, 3.6e6))
      ->capture_default_str();
  command
      ->add_option("--max-seconds", s.max_seconds,
                   "Stop reading after this many seconds (0 = no limit); the figures cover "
                   "what was read")
      ->check(InRange(0, 1e9))
      ->capture_default_str();
  command->add_flag("--cold", flags->cold,
                    "Drop FILE from the page cache first (posix_fadvise DONTNEED), so the run "
                    "reads from the disk; the report says how much stayed resident, and, after "
                    "the run, the disk's rate for FILE (4 readers over its quarters, as dd "
                    "bs=16M) and the fraction of it the run read");
  command->add_flag("--cold-each-epoch", s.cold_each_epoch,
                    "Drop FILE from the page cache before every epoch, not only the first "
                    "(implies --cold; the drops are not timed): epochs read from the disk as "
                    "they would for a file larger than memory");
  command->add_flag("--no-ceilings", flags->no_ceilings,
                    "Skip measuring the machine's ceilings after the run");
  command->add_flag("--normalize", s.normalize,
                    "Deliver float32 NCHW batches, (x/255 - mean)/std with ImageNet's mean and "
                    "std, computed on the CPU (what a trainer without a GPU stage gets)");
  command
      ->add_option("--augment", s.augment,
                   "Augment each image as the loader would for training or validation, and "
                   "report what the augmentation alone costs: comma-separated items rrc=H[xW] "
                   "(random resized crop), scale=MIN:MAX, ratio=MIN:MAX, resize=S (shorter "
                   "side), center=H[xW], pad=P, flip, no-antialias; the ImageNet training "
                   "recipe is rrc=224,flip, its validation resize=256,center=224. Implies "
                   "--normalize")
      ->check(CLI::Validator(bench::AugmentSpecProblem, "SPEC", "augment"));  // exit 2
  command
      ->add_option("--fields", s.fields,
                   "Deliver these fields of FILE with the images (comma-separated names, "
                   "LoaderOptions::fields), to measure what they cost beside the images")
      ->delimiter(',');
  command->add_flag("--stream-fields", s.stream_fields,
                    "Read the array fields of --fields chunk by chunk with the images rather than "
                    "holding them whole (LoaderOptions::held_field_bytes = 1), to measure what "
                    "streaming costs");
  command->add_flag("--no-verify", flags->no_verify,
                    "Skip the checksums of images (or chunks, in files without per-image "
                    "ones): faster, but corruption then goes unnoticed");
  AddFileLockingOption(*command, s.file_locking);
  command->add_flag("--no-map", flags->no_map,
                    "Read chunks with pread only, not through a mapping of FILE "
                    "(LoaderOptions::map_file): the reference for what mapping gains");
  command->add_flag("--direct", s.direct,
                    "Read FILE with O_DIRECT, never through the page cache "
                    "(LoaderOptions::direct): for data sets larger than memory");
  command->add_flag("--full-jpeg-decode", flags->full_jpeg_decode,
                    "Decode every stored JPEG whole before cropping it "
                    "(LoaderOptions::jpeg_region_decode off): the reference for what decoding "
                    "only the crop's part gains");
  command->add_flag("--no-open-probe", flags->no_open_probe,
                    "Open FILE in this process only, without first opening it in a separate "
                    "one (LoaderOptions::open_probe), which turns HDF5 crashing or hanging on a "
                    "damaged file into an error message");
  command->add_flag(
      "--json", flags->json,
      "Print one JSON object (for scripts) instead of text: images_per_s, "
      "mb_per_s, chunk_reads, chunks, cache_hits, cache_misses, peak_rss_mb "
      "(MiB), wait_share, shuffle_quality, random_shuffle_quality, "
      "classes_per_batch, random_classes_per_batch, ceiling_mb_per_s, fraction_of_ceiling, ... (docs/bench.md)");
  AddRemoteOptions(*command, s.remote);
  CLI::App* sweep = AddSweepCommand(*command, run);
  command->callback([flags, command, sweep, &run] {
    if (command->got_subcommand(sweep)) {
      // bench's own options given before `sweep` (`bench --batch 64 sweep ...`) are parsed as
      // bench's, which a sweep never reads; many differ from the sweep's of one name (--sampler
      // and --cache-mb take one value, the sweep's a list), so none is taken for the sweep's.
      for (const CLI::Option* option : command->get_options()) {
        if (option->count() == 0) continue;
        const std::string name = option->get_name();
        throw CLI::ValidationError(name + " must follow sweep: h5feed bench sweep " +
                                   (option->get_positional() ? name : "FILE --out DIR " + name) +
                                   " ...");
      }
      return;
    }
    if (flags->input.text().empty()) {
      throw CLI::RequiredError("FILE");
    }
    flags->settings.path = flags->input.text();
    try {
      bench::CheckSettings(flags->settings);
    } catch (const Error& e) {
      throw CLI::ValidationError(e.what());
    }
    if (flags->settings.min_seconds > 0 && flags->cold && !flags->settings.cold_each_epoch) {
      throw CLI::ValidationError("--min-seconds",
                                 "repeats epochs, which --cold drops from the page cache only "
                                 "before the first: give --cold-each-epoch for cold epochs");
    }
    if (flags->settings.cold_each_epoch) flags->cold = true;
    if (flags->settings.direct && flags->input.remote()) {
      throw CLI::ValidationError("--direct",
                                 "reads a local file with O_DIRECT; a remote file's chunks come "
                                 "over the network");
    }
    if (flags->cold && flags->input.remote()) {
      throw CLI::ValidationError(flags->settings.cold_each_epoch ? "--cold-each-epoch" : "--cold",
                                 "applies to a local file (its page cache); a remote "
                                 "file's first epoch is cold: give --spill-dir an "
                                 "empty folder");
    }
    run = [flags] {
      flags->settings.verify_checksums = !flags->no_verify;
      flags->settings.map_file = !flags->no_map;
      flags->settings.jpeg_region_decode = !flags->full_jpeg_decode;
      flags->settings.open_probe = !flags->no_open_probe;
      InterruptGuard interrupt;
      try {
        BenchReport report = Measure(*flags, interrupt.flag());
        std::cout << (flags->json ? ToJson(*flags, report) : ToText(*flags, report)) << std::flush;
        // A signal while the ceilings were measured (they take longer than a small file's
        // run) stops bench as one during the run does: exit 128 + signal, never 0.
        if (report.result.interrupted || interrupt.signal_number() != 0) {
          std::fprintf(
              stderr, "h5feed bench: interrupted; the figures cover what was read%s\n",
              report.result.interrupted ? "" : " (all of it; not every ceiling was measured)");
          return interrupt.exit_code();
        }
        return kExitOk;
      } catch (const std::exception& e) {
        return ReportInputError("bench", e);
      }
    };
  });
}

}  // namespace h5feed::cli
