#pragma once
// One benchmark run of the Loader: what `h5feed bench` measures, and what `h5feed bench sweep`
// runs once per combination (in a child `h5feed bench --json`, so each run's peak memory is
// its own).
//
// The consumer takes every batch as it comes, touches one byte of it and, with step_ms > 0,
// then sleeps step_ms: a trainer whose GPU step takes that long (its CPU thread mostly waits
// on the GPU, so sleeping is the right model, not spinning). Without a step the consumer is
// infinitely fast and the rate is the reader's own; with one, the share of the time Next()
// waited says whether the reader keeps that trainer fed (0 = never waited).

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "h5feed/loader.h"
#include "sampler/label_mixing.h"
#include "sampler/shuffle_quality.h"

namespace h5feed::bench {

struct BenchSettings {
  std::string path;
  // The image dataset of a foreign file that holds several (LoaderOptions::images_dataset);
  // "" for the default one.
  std::string images;
  std::string sampler = "chunks:8";
  int64_t batch = 256;
  int threads = 0;  // 0 = all usable cores
  int64_t cache_mb = 512;
  int slots = 4;
  int64_t epochs = 1;
  // Read whole epochs beyond `epochs` until the timed span reaches this (0: exactly `epochs`):
  // an epoch of a small file takes milliseconds, too short for a steady rate. A repeated epoch
  // is read warm unless cold_each_epoch.
  double min_seconds = 0;
  uint64_t seed = 0;
  // This process's shard (LoaderOptions::shard): one of several processes reading the file at
  // once, as one per GPU of a node do.
  int rank = 0;
  int world_size = 1;
  bool normalize = false;
  std::string augment;  // augment_spec.h's SPEC (implies normalize); empty = none
  bool verify_checksums = true;
  bool map_file = true;  // LoaderOptions::map_file
  bool direct = false;   // LoaderOptions::direct
  // Drop the file from the page cache before every epoch after the first (the first is the
  // caller's: --cold), outside the timed span: out-of-core epochs on a machine whose memory
  // holds the file.
  bool cold_each_epoch = false;
  bool jpeg_region_decode = true;  // LoaderOptions::jpeg_region_decode
  FileLocking file_locking = FileLocking::kAuto;
  bool open_probe = true;  // LoaderOptions::open_probe (its cost is in open_seconds)
  double step_ms = 0;      // the simulated trainer's time per batch; 0 = none
  double max_seconds = 0;  // stop reading after this long (0 = read every epoch)
  RemoteOptions remote;    // LoaderOptions::remote, for a remote path
  // LoaderOptions::fields: the file's fields delivered with the images (the consumer touches
  // one byte of each, as of the images).
  std::vector<std::string> fields;
  // Stream the array fields of `fields` with the image chunks instead of holding them
  // (LoaderOptions::held_field_bytes = 1).
  bool stream_fields = false;
};

struct BenchResult {
  DatasetInfo dataset;
  LoaderStats stats;
  int threads = 0;  // as resolved (0 = all cores -> the count)
  int64_t epochs_done = 0;
  int64_t images = 0;
  int64_t pixel_bytes = 0;  // uint8 pixels delivered
  double open_seconds = 0;
  double seconds = 0;           // from the first SetEpoch to the end of the last batch read
  double cpu_seconds = 0;       // user + system time of all threads over `seconds`
  double consumer_seconds = 0;  // of `seconds`, the time the simulated trainer spent on steps
  // Not in `seconds`: the Next() calls that reported an epoch's end (they wait for the next
  // epoch's first chunks to load), left out of the wait share too.
  double end_wait_seconds = 0;
  // Of stats.chunk_reads, those the last epoch made ahead for the epoch after it, which the
  // run does not read (LoaderStats::chunk_reads_ahead).
  uint64_t chunk_reads_next_epoch = 0;
  double peak_rss_mib = 0;
  double slot_mib = 0;  // slots x one slot's bytes (memory/slot_layout.h)
  // The first epoch's order, and the `random` sampler's order of the same file, measured the
  // same way (on at most the first 2^20 samples of each).
  std::optional<sampler::ShuffleQuality> quality;
  std::optional<sampler::ShuffleQuality> random_quality;
  // The labels of the first epoch's batches (the same samples): classes and label entropy per
  // batch, beside a shuffle of the same samples' (the random sampler's order of them). None
  // when they hold fewer than two labels (a file without labels reads as all 0).
  std::optional<sampler::LabelMixing> label_mixing;
  // With cold_each_epoch: the drops made before epochs after the first, and the largest share
  // of the file any of them left resident (page_cache.h; above its threshold the epoch after
  // it was not read cold).
  int64_t cold_drops = 0;
  double most_resident_after_drop = 0;
  bool interrupted = false;   // the cancel flag stopped it
  bool time_limited = false;  // max_seconds stopped it before the last epoch ended
};

// A timed span shorter than this measures start-up, scheduling and the clock more than a
// steady rate: runs that short are flagged (a small file's epoch; BenchSettings::min_seconds).
inline constexpr double kShortRunSeconds = 0.25;

// Opens the Loader and reads. `progress(images_done, images_total)` is called after each batch.
// Throws what Loader::Open and Next() throw (h5feed::Error).
BenchResult RunBench(const BenchSettings& settings, const std::atomic<bool>& cancel,
                     const std::function<void(int64_t, int64_t)>& progress = {});

// Throws the Error Loader::Open throws for `settings` alone, before any file is opened
// (loader::CheckOptions: --rank not below --world-size, --slots fewer than an echo needs, ...),
// naming bench's flags: a wrong command line, which `h5feed bench` reports as one (exit 2)
// while it parses it.
void CheckSettings(const BenchSettings& settings);

// The cores this process may run on: what threads = 0 resolves to.
int UsableCores();

// Peak resident memory of this process in MiB (Linux VmHWM).
double PeakRssMib();

// Derived figures (0 when the denominator is 0).
double ImagesPerSecond(const BenchResult& r);
double PixelMbPerSecond(const BenchResult& r);  // MB = 10^6 bytes
double ReadsPerChunk(const BenchResult& r);     // chunk reads per chunk per epoch
double HitRate(const LoaderStats& s);
double WaitShare(const BenchResult& r);  // of `seconds`, the share Next() waited
double CoresUsed(const BenchResult& r);
// Whether `r` read every epoch it was asked for in less than kShortRunSeconds.
bool IsShortRun(const BenchResult& r);

}  // namespace h5feed::bench
