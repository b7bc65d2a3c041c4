#pragma once
// One row of `h5feed bench sweep`'s results: one combination of settings (or one reference
// loader) and every figure of its run. results_csv.h writes rows, sweep_report.h tables them,
// recommendation.h chooses among them. docs/bench.md defines each figure.

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace h5feed::bench {

// A figure that does not apply (a reference loader has no cache hit rate; an uncompressed file
// no zstd ceiling) or was not measured: an empty CSV cell, a dash in the report.
inline constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();
inline bool Measured(double value) { return !std::isnan(value); }

struct SweepRow {
  // "grid" (a combination of the grid), "defaults" (the extra run with h5feed's defaults,
  // when they are not in the grid), "reference" (a PyTorch DataLoader + h5py loader on the
  // input file, --compare-h5py).
  std::string kind = "grid";
  int64_t chunk_samples = 0;  // images per chunk of the file read (own size: the most any holds)
  std::string compression;    // "none", "zstd:3", ... (reference: the input file's)
  // How each image is stored: "raw" for a file of one image size; an own-size file's
  // "raw", "jpeg:Q" or "smart:Q".
  std::string encoding = "raw";
  int64_t chunk_bytes = 0;    // own-size files: C, a chunk's bytes before compression; else 0
  int64_t cache_mb = 0;       // reference: 0
  std::string sampler;        // "random", "chunks:4", ... (reference: "h5py random", ...)
  bool is_default = false;    // these are h5feed's default settings
  std::string status = "ok";  // "ok", "time limit" (stopped by --max-seconds), "failed"
  std::string error;          // why it failed
  int64_t batch = 0;
  int threads = 0;
  double step_ms = 0;
  bool cold = false;  // started with the file dropped from the page cache (verified)

  int64_t images = 0;
  double seconds = 0;
  double images_per_s = 0;
  double mb_per_s = 0;  // uint8 pixels delivered, MB = 10^6 bytes
  double chunk_reads_per_chunk = kNotMeasured;
  double cache_hit_rate = kNotMeasured;
  double wait_share = kNotMeasured;
  double cpu_cores_used = kNotMeasured;
  double peak_rss_mb = kNotMeasured;  // MiB
  double shuffle_quality = kNotMeasured;
  double random_shuffle_quality = kNotMeasured;
  double chunks_per_batch = kNotMeasured;
  double random_chunks_per_batch = kNotMeasured;
  // The labels of the batches (sampler/label_mixing.h): not measured without two labels.
  double classes_per_batch = kNotMeasured;
  double random_classes_per_batch = kNotMeasured;
  double label_entropy_bits = kNotMeasured;
  double random_label_entropy_bits = kNotMeasured;
  // The batches mix too few classes (below the bar the loader warns at): never recommended.
  bool few_classes = false;

  double file_mb = kNotMeasured;   // size of the file read, MB
  double file_mib = kNotMeasured;  // the same in MiB
  // Whether the file read fits the page cache: its size against MemAvailable (/proc/meminfo)
  // at the sweep's start, "yes" or "no"; empty when that does not apply (a remote file).
  std::string fits_page_cache;
  double compression_ratio = kNotMeasured;
  double page_cache_mb_per_s = kNotMeasured;
  double zstd_mb_per_s = kNotMeasured;  // one thread; the ceiling uses it x threads
  double memcpy_mb_per_s = kNotMeasured;
  double ceiling_mb_per_s = kNotMeasured;  // the binding ceiling in pixel MB/s
  std::string ceiling;                     // which one binds: "page cache", "zstd x 2"
  double fraction_of_ceiling = kNotMeasured;
  // Cold runs (disk_rate.h): the stored bytes the run read per second, the device's rate for
  // the file with 4 readers at once (measured once per file variant), and their ratio.
  double read_mb_per_s = kNotMeasured;
  double disk_mb_per_s = kNotMeasured;
  double fraction_of_disk = kNotMeasured;

  bool succeeded() const { return status != "failed"; }
  // Settings in words: "chunk 64, zstd:3, cache 256 MiB, chunks:4"; own size: "jpeg:90,
  // chunks of 4 MiB, none, cache 256 MiB, chunks:4".
  std::string Settings() const;
  // The file variant in words (FileVariantWords).
  std::string FileName() const;
};

// A file variant in words: "chunk 64, zstd:3" for chunks of K images, "jpeg:90, chunks of
// 4 MiB, none" for chunks of C bytes (chunk_bytes > 0) of whole images at their own size.
std::string FileVariantWords(int64_t chunk_samples, const std::string& encoding,
                             int64_t chunk_bytes, const std::string& compression);

}  // namespace h5feed::bench
