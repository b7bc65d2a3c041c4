// `h5feed bench sweep`: the command line of the sweep (sweep_runner.h).

#include "bench/sweep_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "bench/augment_spec.h"
#include "bench/file_kind.h"
#include "bench/recommendation.h"
#include "bench/reference_loaders.h"
#include "bench/sweep_runner.h"
#include "command_error.h"
#include "exit_codes.h"
#include "h5feed/error.h"
#include "h5feed/location.h"
#include "h5feed/remote_options.h"
#include "index/dataset_index.h"
#include "input_paths.h"
#include "interrupt_guard.h"
#include "make_error.h"
#include "number_checks.h"
#include "remote_options_flags.h"

#ifndef H5FEED_BUILD_PLUGIN_DIR
#define H5FEED_BUILD_PLUGIN_DIR ""
#endif

namespace h5feed::cli {
namespace {

// The signals InterruptGuard catches, by name: what a user sent (Ctrl-C is SIGINT).
std::string SignalName(int signal_number) {
  switch (signal_number) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "signal " + std::to_string(signal_number);
  }
}

// " by SIGINT (signal 2)", or "" when the guard caught no signal.
std::string InterruptedBy(const InterruptGuard& interrupt) {
  const int signal_number = interrupt.signal_number();
  if (signal_number == 0) return "";
  return " by " + SignalName(signal_number) + " (signal " + std::to_string(signal_number) + ")";
}

// What an interrupted sweep leaves, for stderr: the signal, how far it got and what is written
// (a sweep stops between runs; its rows and report are written as far as it got, and the
// rechunked files are removed).
std::string DescribeInterruption(const InterruptGuard& interrupt,
                                 const bench::SweepOutcome& outcome) {
  const std::string by = interrupt.signal_number() != 0
                             ? SignalName(interrupt.signal_number()) + " (signal " +
                                   std::to_string(interrupt.signal_number()) + ") came"
                             : "it stopped";
  // The reference loaders' rows come after every configuration's: not among them.
  const auto configurations =
      std::count_if(outcome.rows.begin(), outcome.rows.end(),
                    [](const auto& row) { return row.kind != "reference"; });
  return "interrupted; the finished rows are kept: " + by + " after " +
         std::to_string(configurations) + " of " + std::to_string(outcome.planned_runs) +
         " configurations, " + outcome.csv_path + " holds their rows and " + outcome.report_path +
         " says where the sweep stopped; the temporary files are removed";
}

struct SweepFlags {
  bench::SweepOptions options;
  std::string chunks = "16,64,256,1024";
  std::string compressions = "none,zstd:1,zstd:3";
  std::string encodings;    // empty: FileKind's defaults
  std::string chunk_bytes;  // empty: the input's
  std::string cache_mb = "64,256,1024";
  std::string samplers = "random,chunks:4,chunks:16,quasi";
  int64_t disk_budget_mb = 0;
  std::string reference_loaders;
  bool force = false;  // write into an --out that holds files already
  // Given on the command line (CLI11's count): --chunks and --compression are for files of one
  // image size.
  CLI::Option* chunks_given = nullptr;
  CLI::Option* compressions_given = nullptr;
};

// What the input's kind asks of the options (exit 2 when broken; file_kind.h). Throws what
// opening the index throws.
bool OptionsFitInput(const SweepFlags& f) {
  const bench::SweepOptions& o = f.options;
  index::IndexOptions index_options;
  index_options.remote = o.remote;
  index_options.images = o.images;
  const auto kind = bench::FileKind::Of(index::OpenDatasetIndex(o.input.text(), index_options));
  const std::string problem = kind->OptionsProblem(
      {.chunks_or_compression = f.chunks_given->count() > 0 || f.compressions_given->count() > 0,
       .encodings_or_chunk_bytes = !f.encodings.empty() || !f.chunk_bytes.empty(),
       .augment = !o.augment.empty()},
      o.input.display());
  if (!problem.empty()) ReportUsageError("bench sweep", problem);
  return problem.empty();
}

// The command as it would be typed to reproduce the sweep (the report starts with it).
std::string CommandLine(const SweepFlags& f) {
  const bench::SweepOptions& o = f.options;
  char numbers[200];
  std::snprintf(numbers, sizeof numbers,
                " --batch %lld --threads %d --slots %d --step-ms %g "
                "--max-seconds %g --min-seconds %g",
                static_cast<long long>(o.batch), o.threads, o.slots, o.step_ms, o.max_seconds,
                o.min_seconds);
  std::string remote;
  for (const std::string& flag : o.remote_flags) remote += " " + flag;
  // A pre-signed URL's query is left out: the report may be shared.
  std::string variants;
  if (!f.encodings.empty()) variants += " --encodings " + f.encodings;
  if (!f.chunk_bytes.empty()) variants += " --chunk-bytes " + f.chunk_bytes;
  if (variants.empty()) variants = " --chunks " + f.chunks + " --compression " + f.compressions;
  return "h5feed bench sweep " + o.input.display() + " --out " + o.out_dir + variants +
         " --cache-mb " + f.cache_mb + " --sampler " + f.samplers + numbers +
         (o.augment.empty() ? "" : " --augment " + o.augment) +
         (o.cold_each_epoch ? " --cold-each-epoch"
          : o.cold          ? " --cold"
                            : "") +
         (o.direct ? " --direct" : "") + (o.compare_h5py ? " --compare-h5py" : "") +
         (o.work_dir.empty() ? "" : " --work-dir " + o.work_dir) + (f.force ? " --force" : "") +
         remote;
}

int RunSweepCommand(SweepFlags& flags) {
  bench::SweepOptions& o = flags.options;
  try {
    o.grid = bench::ParseGrid(flags.chunks, flags.compressions, flags.cache_mb, flags.samplers);
    if (!flags.encodings.empty()) o.grid.encodings = bench::ParseEncodings(flags.encodings);
    if (!flags.chunk_bytes.empty()) o.grid.chunk_bytes = bench::ParseChunkBytes(flags.chunk_bytes);
  } catch (const Error& e) {
    return ReportUsageError("bench sweep", e.what());
  }
  if (o.cold_each_epoch) o.cold = true;
  if (o.direct && o.input.remote()) {
    return ReportUsageError("bench sweep",
                            "--direct reads a local file with O_DIRECT; a remote file's chunks "
                            "come over the network");
  }
  if (o.cold && o.input.remote()) {
    return ReportUsageError("bench sweep",
                            std::string(o.cold_each_epoch ? "--cold-each-epoch" : "--cold") +
                                " applies to a local file (its page cache); a remote file is "
                                "read over its link in every run");
  }
  // A sweep's results in --out (another sweep's, taking hours to make) are replaced only when
  // asked; a new or empty folder is the sweep's own.
  std::error_code error;
  if (std::filesystem::exists(o.out_dir, error) &&
      !std::filesystem::is_directory(o.out_dir, error)) {
    return ReportUsageError("bench sweep", "--out " + o.out_dir +
                                               " is a file, not a folder, and is left as it is: "
                                               "give a new or empty folder for the results");
  }
  if (!flags.force && std::filesystem::is_directory(o.out_dir, error) &&
      !std::filesystem::is_empty(o.out_dir, error)) {
    return ReportUsageError("bench sweep",
                            "--out " + o.out_dir +
                                " holds files already (a sweep's results?) and is left as it is: "
                                "give a new or empty folder, or --force to write into it "
                                "(its results.csv, report.md and throughput.* replaced)");
  }
  try {
    if (!OptionsFitInput(flags)) return kExitUsage;
  } catch (const std::exception& e) {
    return ReportInputError("bench sweep", e);
  }
  o.remote_flags = RemoteOptionsArguments(o.remote);
  o.command_line = CommandLine(flags);
  InterruptGuard interrupt;
  try {
    o.executable = std::filesystem::read_symlink("/proc/self/exe").string();
    o.disk_budget = static_cast<uint64_t>(flags.disk_budget_mb) << 20;
    if (o.compare_h5py) {
      // Found before any work, so a missing script fails in a second, not after the sweep.
      o.reference.script = bench::LocateReferenceLoaders(flags.reference_loaders, o.executable);
      o.reference.workers = o.threads > 0 ? o.threads : 2;
      o.reference.batch = o.batch;
      o.reference.images = o.images;
      o.reference.max_seconds = o.max_seconds;
      std::error_code ignored;
      if (o.reference.plugin_dir.empty() &&
          std::filesystem::is_directory(H5FEED_BUILD_PLUGIN_DIR, ignored)) {
        o.reference.plugin_dir = H5FEED_BUILD_PLUGIN_DIR;
      }
    }
    const bench::SweepOutcome outcome = bench::RunSweep(
        o, interrupt.flag(),
        [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); });
    // An interrupted sweep whose runs never finished has no errors to point at: stderr says
    // what happened instead.
    if (!outcome.interrupted || outcome.recommendation.best) {
      std::printf(
          "%s",
          bench::DescribeRecommendation(outcome.rows, outcome.recommendation, o.recommend).c_str());
    }
    std::printf("results: %s (%zu rows), %s%s\n", outcome.csv_path.c_str(), outcome.rows.size(),
                outcome.report_path.c_str(),
                outcome.plot.drawn ? (", " + o.out_dir + "/throughput.png").c_str() : "");
    if (!outcome.plot.drawn)
      std::fprintf(stderr, "h5feed bench sweep: warning: %s\n", outcome.plot.message.c_str());
    if (outcome.interrupted) {
      std::fprintf(stderr, "h5feed bench sweep: %s\n",
                   DescribeInterruption(interrupt, outcome).c_str());
      return interrupt.signal_number() ? interrupt.exit_code() : kExitInterrupted;
    }
    // A sweep that measured nothing failed, however well it wrote its report of failures.
    if (const std::optional<std::string> failed = bench::EveryRunFailed(outcome.rows)) {
      return ReportError("bench sweep",
                         MakeError(ErrorCode::kInvalidArgument, "{} (each run's error is in {})",
                                   *failed, outcome.csv_path));
    }
    return kExitOk;
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kCancelled) {
      std::fprintf(stderr, "h5feed bench sweep: interrupted%s\n", InterruptedBy(interrupt).c_str());
      return interrupt.signal_number() ? interrupt.exit_code() : kExitInterrupted;
    }
    return ReportError("bench sweep", e);
  } catch (const std::exception& e) {
    return ReportError("bench sweep", e);
  }
}

}  // namespace

CLI::App* AddSweepCommand(CLI::App& bench, Runner& run) {
  auto flags = std::make_shared<SweepFlags>();
  bench::SweepOptions& o = flags->options;
  CLI::App* command = bench.add_subcommand(
      "sweep",
      "Measure every combination of chunk size, compression, cache size and sampler on FILE: "
      "rechunks FILE into temporary files (one at a time, removed afterwards, within the free "
      "disk space checked first), runs 'h5feed bench' on each combination beside the "
      "machine's ceilings, and writes DIR/results.csv (one row per run, written as it ends), "
      "DIR/report.md (best first, with the recommendation) and DIR/throughput.png (gnuplot). "
      "The random sampler and h5feed's defaults are always run: the recommendation is stated "
      "against them. docs/bench.md defines every column");
  command
      ->add_option("FILE", o.input,
                   "The HDF5 file to sweep (any uint8 image dataset); a remote one "
                   "(http(s)://, s3://) is measured as stored, over caches and samplers")
      ->required()
      ->check(ExistingInput(InputKind::kFileOrUrl));
  command->add_option("--images", o.images,
                      "The image dataset of a file that holds several (default: 'images', else "
                      "the only 4-D uint8 dataset, else the only 3-D one), as 'h5feed bench "
                      "--images' names it; the variants are rewritten from it");
  command
      ->add_option("--out", o.out_dir,
                   "Folder for results.csv, report.md, throughput.png: a new or empty one "
                   "(see --force)")
      ->required();
  command->add_flag("--force", flags->force,
                    "Write into --out even when it holds files, replacing its results.csv, "
                    "report.md and throughput.* (without it such a folder is refused)");
  flags->chunks_given =
      command->add_option("--chunks", flags->chunks, "Images per chunk, comma-separated")
          ->capture_default_str();
  flags->compressions_given =
      command
          ->add_option("--compression", flags->compressions,
                       "Compressions, comma-separated: none, zstd[:L], gzip[:L]")
          ->capture_default_str();
  command->add_option(
      "--encodings", flags->encodings,
      "For a file of images at their own size (format version 2), in place of --chunks and "
      "--compression: how the variants store each image, comma-separated: raw, jpeg[:Q], "
      "smart[:Q] (default: the file's own, raw and jpeg:90); each is compressed as 'h5feed "
      "convert' does by default (jpeg: none, else zstd:3)");
  command->add_option("--chunk-bytes", flags->chunk_bytes,
                      "For a file of images at their own size: bytes of a chunk before "
                      "compression, comma-separated, e.g. 1M,4M (default: the file's)");
  command->add_option("--cache-mb", flags->cache_mb, "Cache sizes in MiB, comma-separated")
      ->capture_default_str();
  command
      ->add_option("--sampler", flags->samplers,
                   "Samplers, comma-separated: sequential, random, chunks[:W], quasi[:W]")
      ->capture_default_str();
  command->add_option("--batch", o.batch, "Images per batch")
      ->check(AtLeast(1))
      ->capture_default_str();
  command->add_option("--threads", o.threads, "Reader (and rechunking) threads; 0 = all cores")
      ->check(AtLeast(0))
      ->capture_default_str();
  command->add_option("--slots", o.slots, "Batch buffers of each run")
      ->check(InRange(1, 1024))
      ->capture_default_str();
  command
      ->add_option("--step-ms", o.step_ms,
                   "Simulated trainer time per batch in every run (see 'h5feed bench --help')")
      ->check(InRange(0, 3.6e6))
      ->capture_default_str();
  command
      ->add_option("--max-seconds", o.max_seconds,
                   "Stop each run after this long (0 = a whole epoch); its rate covers what was "
                   "read, and its status says 'time limit'")
      ->check(InRange(0, 1e9))
      ->capture_default_str();
  command
      ->add_option("--min-seconds", o.min_seconds,
                   "Each run reads whole epochs until this long is timed (see 'h5feed bench "
                   "--min-seconds'; 0 = one epoch), so that a small file's runs measure a steady "
                   "rate; a --cold run reads one epoch (its only cold one) unless "
                   "--cold-each-epoch")
      ->check(InRange(0, 1e9))
      ->capture_default_str();
  command->add_flag("--cold", o.cold,
                    "Drop the file from the page cache before each run (see 'h5feed bench'), and "
                    "measure each file's disk rate (4 readers over its quarters) to judge the "
                    "runs against");
  command->add_flag("--cold-each-epoch", o.cold_each_epoch,
                    "Drop the file before each epoch of every run, not only the first (implies "
                    "--cold)");
  command->add_flag("--direct", o.direct,
                    "Every run reads with O_DIRECT (see 'h5feed bench --direct')");
  command
      ->add_option("--augment", o.augment,
                   "Augment in every run, as 'h5feed bench --augment' (for example rrc=224,flip); "
                   "the report says what the augmentation alone costs. Required for a file of "
                   "images at their own size, whose runs must crop them to one size")
      ->check(CLI::Validator(bench::AugmentSpecProblem, "SPEC", "augment"));
  command
      ->add_option("--min-shuffle-quality", o.recommend.min_shuffle_quality,
                   "The recommendation only considers runs at least this random (1 = the random "
                   "sampler)")
      ->check(InRange(0, 2))
      ->capture_default_str();
  command->add_option("--work-dir", o.work_dir,
                      "Where the temporary rechunked files go, made if missing (default: DIR)");
  command
      ->add_option("--disk-budget-mb", flags->disk_budget_mb,
                   "Refuse to start when one rechunked copy could need more than this (0 = the "
                   "free space is the only limit)")
      ->check(AtLeast(0));
  command->add_flag("--compare-h5py", o.compare_h5py,
                    "Also run bench/reference_loaders.py (PyTorch DataLoader + h5py: random, "
                    "random_rdcc, chunked) on FILE with --python, as rows of the table (not for "
                    "a file of images at their own size: skipped, with a note)");
  command->add_option("--python", o.reference.python, "The Python with torch and h5py")
      ->capture_default_str();
  command->add_option("--reference-loaders", flags->reference_loaders,
                      "Path of reference_loaders.py (default: the installed copy, else the "
                      "source tree's)");
  command->add_option("--plugin-dir", o.reference.plugin_dir,
                      "Folder of h5feed's zstd HDF5 plugin, for h5py (default: this build's)");
  AddRemoteOptions(*command, o.remote);
  command->callback([flags, &run] { run = [flags] { return RunSweepCommand(*flags); }; });
  return command;
}

}  // namespace h5feed::cli
