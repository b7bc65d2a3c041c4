// The sweep's Markdown report (sweep_report.h).

#include "sweep_report.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "byte_size.h"
#include "h5feed/error.h"
#include "make_error.h"
#include "number_text.h"
#include "sampler/label_mixing.h"
#include "sweep_plan.h"

namespace h5feed::bench {
namespace {

// "0.91 (random 1.00)": a figure beside the random sampler's value.
std::string Beside(const char* format, double value, double random) {
  if (!Measured(value)) return "-";
  return Fixed(format, value) + (Measured(random) ? " (" + Fixed(format, random) + ")" : "");
}

std::string Escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string Status(const SweepRow& row) {
  if (row.status == "failed") return "failed: " + Escape(row.error);
  return row.status == "ok" ? "" : row.status;
}

std::string ResultsTable(std::span<const SweepRow> rows, const Recommendation& r) {
  std::string t =
      "| # | chunk | compression | cache MiB | sampler | images/s | MB/s | ceiling MB/s | "
      "of ceiling | reads/chunk | hit rate | shuffle quality (random) | chunks/batch (random) "
      "| classes/batch (random) | label entropy bits (random) | waited | peak RSS MiB | "
      "encoding | file MiB | fits page cache | note |\n"
      "| ---: | ---: | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
      "---: | ---: | ---: | ---: | ---: | --- | ---: | --- | --- |\n";
  int rank = 0;
  for (size_t i : RankRows(rows)) {
    const SweepRow& row = rows[i];
    std::string note = Status(row);
    auto add = [&note](const std::string& words) { note += (note.empty() ? "" : "; ") + words; };
    if (r.best && *r.best == i) add("**recommended**");
    if (row.is_default) add("h5feed's defaults");
    if (row.kind == "reference") add("DataLoader + h5py");
    if (row.few_classes) add("batches mix few classes");
    const bool reference = row.kind == "reference";
    // An own-size file's chunks are a number of bytes, each holding as many images as fit.
    const std::string chunk = row.chunk_bytes > 0 ? ToString(ByteSize(row.chunk_bytes))
                                                  : std::to_string(row.chunk_samples);
    t += "| " + std::to_string(++rank) + " | " + chunk + " | " + row.compression + " | " +
         (reference ? "-" : std::to_string(row.cache_mb)) + " | " + Escape(row.sampler) + " | " +
         Grouped(row.images_per_s) + " | " + Fixed("%.0f", row.mb_per_s) + " | " +
         (Measured(row.ceiling_mb_per_s)
              ? Fixed("%.0f", row.ceiling_mb_per_s) + " (" + row.ceiling + ")"
              : "-") +
         " | " + Fixed("%.2f", row.fraction_of_ceiling) + " | " +
         Fixed("%.2f", row.chunk_reads_per_chunk) + " | " + Fixed("%.2f", row.cache_hit_rate) +
         " | " + Beside("%.2f", row.shuffle_quality, row.random_shuffle_quality) + " | " +
         Beside("%.1f", row.chunks_per_batch, row.random_chunks_per_batch) + " | " +
         Beside("%.1f", row.classes_per_batch, row.random_classes_per_batch) + " | " +
         Beside("%.2f", row.label_entropy_bits, row.random_label_entropy_bits) + " | " +
         // Without --step-ms Next() waits nearly all the time by construction: no figure.
         (row.step_ms > 0 ? Fixed("%.2f", row.wait_share) : "-") + " | " +
         Fixed("%.0f", row.peak_rss_mb) + " | " + row.encoding + " | " +
         Fixed("%.1f", row.file_mib) + " | " +
         (row.fits_page_cache.empty() ? "-" : row.fits_page_cache) + " | " + note + " |\n";
  }
  return t;
}

// One line per file variant: its size and ceilings (the same for every run of the variant).
std::string CeilingTable(std::span<const SweepRow> rows) {
  std::string t =
      "| file variant | file MB | compression ratio | page cache MB/s | zstd MB/s (1 thread) "
      "| memcpy MB/s | binding ceiling, pixel MB/s |\n"
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  std::vector<std::string> seen;
  for (const SweepRow& row : rows) {
    if (row.kind == "reference" || !Measured(row.page_cache_mb_per_s)) continue;
    const std::string name = row.FileName();
    bool already = false;
    for (const std::string& s : seen) already = already || s == name;
    if (already) continue;
    seen.push_back(name);
    t += "| " + name + " | " + Fixed("%.1f", row.file_mb) + " | " +
         Fixed("%.2f", row.compression_ratio) + " | " + Fixed("%.0f", row.page_cache_mb_per_s) +
         " | " + Fixed("%.0f", row.zstd_mb_per_s) + " | " + Fixed("%.0f", row.memcpy_mb_per_s) +
         " | " + Fixed("%.0f", row.ceiling_mb_per_s) + " (" + row.ceiling + ") |\n";
  }
  return t;
}

// Cold runs (--cold): the stored bytes each read per second against the device's rate for its
// file with 4 readers at once. Empty when no run was judged against the disk.
std::string DiskTable(std::span<const SweepRow> rows) {
  std::string t =
      "| settings | read MB/s (stored bytes) | disk MB/s (4 readers) | of disk |\n"
      "| --- | ---: | ---: | ---: |\n";
  bool any = false;
  for (const SweepRow& row : rows) {
    if (!Measured(row.fraction_of_disk)) continue;
    any = true;
    t += "| " + Escape(row.Settings()) + " | " + Fixed("%.0f", row.read_mb_per_s) + " | " +
         Fixed("%.0f", row.disk_mb_per_s) + " | " + Fixed("%.2f", row.fraction_of_disk) + " |\n";
  }
  return any ? t : std::string();
}

}  // namespace

std::string SweepReportMarkdown(std::span<const SweepRow> rows, const Recommendation& r,
                                const RecommendOptions& options, const ReportContext& context) {
  std::string md = "# h5feed bench sweep: " + context.file + "\n\n";
  md += "```sh\n" + context.command + "\n```\n\n";
  if (!context.machine.empty()) md += "Machine: " + context.machine + ". ";
  if (!context.date.empty()) md += "Date: " + context.date + ".";
  md += "\n\n";
  for (const std::string& note : context.notes) md += "> " + note + "\n\n";
  md += "## Recommendation\n\n" + DescribeRecommendation(rows, r, options) + "\n";
  md += "Runs with shuffle quality below " + Fixed("%.2f", options.min_shuffle_quality) +
        " are not recommended whatever their speed. ";
  md += "Nor are runs whose batches mix few classes (label entropy below " +
        Fixed("%.2f", sampler::kMinEntropyRatio) +
        " of the random order's, the bar the loader warns at: a file stored sorted by label). ";
  md +=
      "Shuffle quality is the entropy of |row distance| between consecutive samples as a "
      "share of a global shuffle's (1 = as random as the `random` sampler); chunks/batch is "
      "the mean number of distinct chunks in a batch; classes/batch and label entropy are "
      "those of the labels in a batch. Each is shown beside the `random` sampler's value for "
      "the same file (docs/bench.md).\n\n";
  md += "## Results, fastest first\n\n" + ResultsTable(rows, r) + "\n";
  md +=
      "The ceiling is the lower of the page-cache read rate x the compression ratio and (zstd "
      "files) one thread's zstd decompression rate x threads, measured on the same file in "
      "the same run; \"of ceiling\" is MB/s of pixels delivered over it.\n\n";
  md += "## Ceilings of each file variant\n\n" + CeilingTable(rows) + "\n";
  if (const std::string disk = DiskTable(rows); !disk.empty()) {
    md +=
        "## Cold runs against the disk\n\nEach run's stored bytes read per second, against "
        "the disk's rate for its file: 4 readers at once over the file's quarters, the page "
        "cache dropped first (as 4 `dd bs=16M`), measured once per file variant.\n\n" +
        disk + "\n";
  }
  if (!context.plot.empty()) {
    md += "## Throughput against chunk size\n\n![images/s against chunk size](" + context.plot +
          ")\n";
  }
  return md;
}

void WriteTextFile(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".partial";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      throw MakeError(ErrorCode::kIo, "cannot write {}: {}", temporary, std::strerror(errno));
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error)
    throw MakeError(ErrorCode::kIo, "cannot rename {} to {}: {}", temporary, path, error.message());
}

}  // namespace h5feed::bench
