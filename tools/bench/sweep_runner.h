#pragma once
// `h5feed bench sweep`'s work, without the command line: for each file variant of the plan,
// rechunk (rechunked_files.h), warm or drop the page cache, measure the ceilings
// (ceilings.h), run `h5feed bench --json` once per cache size x sampler in a child process
// (each run's peak memory is then its own, and a crash costs one row), and append each row to
// DIR/results.csv as it ends. Then the reference loaders (--compare-h5py), DIR/report.md,
// DIR/throughput.png and the recommendation.
//
// Ctrl-C (the cancel flag, and the child that gets the same signal) stops at once: the
// unfinished run is dropped, the finished rows stay in the CSV, the report and plot are drawn
// from them, and the temporary files are removed.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "h5feed/location.h"
#include "h5feed/remote_options.h"
#include "recommendation.h"
#include "reference_loaders.h"
#include "sweep_plan.h"
#include "sweep_row.h"
#include "throughput_plot.h"

namespace h5feed::bench {

struct SweepOptions {
  Location input;  // the file to sweep
  // Its image dataset, when an h5py-made file holds several (LoaderOptions::images_dataset);
  // "" for the default one. The rechunked variants are h5feed files: only runs, ceilings and
  // reference loaders on the input itself need it.
  std::string images;
  std::string out_dir;     // results.csv, report.md, throughput.png (created when absent)
  std::string work_dir;    // where the rechunked copies go; empty = out_dir
  std::string executable;  // this h5feed, run as `h5feed bench --json` per combination
  std::string command_line;
  // The variants' axes the input's kind takes (file_kind.h: encodings and chunk bytes are
  // refused, kInvalidArgument, for a file of one image size) and the runs' caches x samplers.
  SweepGrid grid;
  int64_t batch = 256;
  int threads = 0;  // 0 = all usable cores
  int slots = 4;
  double step_ms = 0;
  std::string augment;      // every run's --augment (augment_spec.h); empty = none
  double max_seconds = 30;  // per run; 0 = a whole epoch
  // Each run reads whole epochs until this long is timed (BenchSettings::min_seconds); a cold
  // run (without cold_each_epoch) reads one epoch, its only cold one.
  double min_seconds = 0.5;
  bool cold = false;             // drop each file from the page cache before each run
  bool cold_each_epoch = false;  // and before each of a run's epochs (implies cold)
  bool direct = false;           // every run reads with O_DIRECT (LoaderOptions::direct)
  uint64_t disk_budget = 0;      // bytes; 0 = the free space
  bool compare_h5py = false;
  ReferenceSettings reference;            // script located by the caller
  RemoteOptions remote;                   // for a remote input: every run reads it with these,
  std::vector<std::string> remote_flags;  // given to each run as these flags
  RecommendOptions recommend;
};

struct SweepOutcome {
  std::vector<SweepRow> rows;
  Recommendation recommendation;
  PlotOutcome plot;
  bool interrupted = false;
  size_t planned_runs = 0;  // the runs of the plan (rows holds those that finished)
  std::string csv_path, report_path;
};

// Throws Error for what stops the sweep before it starts (unreadable input, no disk space,
// unwritable DIR; kInvalidArgument for options the input's kind refuses, FileKind::
// OptionsProblem: a file of images at their own size without `augment`, whose runs need a
// crop to one size); a failing run becomes a "failed" row instead. `say` gets progress lines.
SweepOutcome RunSweep(const SweepOptions& options, const std::atomic<bool>& cancel,
                      const std::function<void(const std::string&)>& say);

}  // namespace h5feed::bench
