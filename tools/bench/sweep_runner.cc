// The sweep's orchestration (sweep_runner.h).

#include "sweep_runner.h"

#include <sys/utsname.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "augment_cost.h"
#include "augment_spec.h"
#include "bench_run.h"
#include "byte_size.h"
#include "ceilings.h"
#include "disk_rate.h"
#include "file_kind.h"
#include "h5feed/error.h"
#include "h5feed/remote_options.h"
#include "index/dataset_index.h"
#include "make_error.h"
#include "number_text.h"
#include "page_cache.h"
#include "rechunked_files.h"
#include "results_csv.h"
#include "subprocess.h"
#include "sweep_report.h"
#include "units.h"

namespace h5feed::bench {
namespace {

using Clock = std::chrono::steady_clock;

std::string Elapsed(Clock::time_point start) {
  return cli::FormatDuration(std::chrono::duration<double>(Clock::now() - start).count());
}

// The plan for a remote input: the grid's caches and samplers (and h5feed's defaults) over the
// file as it is stored.
SweepPlan PlanRemoteSweep(const SweepGrid& grid, const FileKind& kind, const std::string& path,
                          const std::function<void(const std::string&)>& say) {
  say("sweep " + path + " is remote: measured as it is stored (" + kind.stored().Name() +
      "), over the caches and samplers asked for; to compare chunk sizes and compressions, "
      "sweep a local copy, then upload the best");
  SweepRun defaults = kind.Defaults();
  defaults.file = kind.stored();
  return PlanSweep({kind.stored()}, grid, defaults);
}

// Reading the file once brings it into the page cache, so no run pays for the first disk read
// (unless --cold asks for exactly that).
void WarmPageCache(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) return;
  std::vector<char> block(size_t{16} << 20);
  while (std::fread(block.data(), 1, block.size(), file) == block.size()) {}
  std::fclose(file);
}

// The file read: its size, and whether it fits in `available` bytes of page cache (0: unknown).
struct FileSize {
  uint64_t bytes = 0;
  uint64_t available = 0;
};

void ApplyFileSize(SweepRow& row, const FileSize& file) {
  row.file_mb = static_cast<double>(file.bytes) / 1e6;
  row.file_mib = static_cast<double>(file.bytes) / (1 << 20);
  if (file.available > 0) row.fits_page_cache = file.bytes <= file.available ? "yes" : "no";
}

// A remote file's ceiling is its link, which its runs measure: none is computed here.
void ApplyRemoteFile(SweepRow& row, const FileSize& file) {
  ApplyFileSize(row, FileSize{file.bytes, 0});  // no page cache holds it
  row.ceiling = "not measured (remote)";
}

// A cold run against the device's rate for its file (measured when the sweep runs cold).
void ApplyDiskRate(SweepRow& row, const std::optional<DiskRate>& disk) {
  if (!disk || !row.cold) return;
  row.disk_mb_per_s = disk->mb_per_s;
  row.fraction_of_disk =
      Measured(row.read_mb_per_s) ? FractionOf(row.read_mb_per_s, disk->mb_per_s) : kNotMeasured;
}

void ApplyCeilings(SweepRow& row, const Ceilings& c, const FileSize& file) {
  ApplyFileSize(row, file);
  row.compression_ratio = c.compression_ratio;
  row.page_cache_mb_per_s = c.page_cache_mb_per_s;
  row.zstd_mb_per_s = c.compressed() ? c.zstd_mb_per_s : kNotMeasured;
  row.memcpy_mb_per_s = c.memcpy_mb_per_s;
  row.ceiling_mb_per_s = c.PixelMbPerSecond();
  row.ceiling = c.Binding();
  row.fraction_of_ceiling = FractionOf(row.mb_per_s, c.PixelMbPerSecond());
}

double Number(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : kNotMeasured;
}

// With --augment: what the augmentation alone costs on the input, the most any run delivers.
std::string AugmentNote(const SweepOptions& o, int threads) {
  const AugmentCost cost = MeasureAugmentCost(o.input.text(), o.images, ParseAugmentSpec(o.augment),
                                              threads, o.batch, 0);
  return "Every run augments (--augment " + o.augment + ", float32 " +
         std::to_string(cost.out_height) + "x" + std::to_string(cost.out_width) +
         "): the augmentation alone transforms " + Fixed("%.0f", cost.images_per_s) +
         " images/s on " + std::to_string(threads) + " threads, the most any run can deliver.";
}

// One combination: `h5feed bench FILE --json ...` in a child. Returns false when Ctrl-C
// stopped it (the row is then dropped). The caller fills in the file's chunk_samples.
bool RunOne(const SweepOptions& o, const SweepRun& run, const std::string& file, SweepRow& row) {
  row.kind = run.in_grid ? "grid" : "defaults";
  row.compression = run.file.compression.ToString();
  row.encoding = run.file.encoding.ToString();
  row.chunk_bytes = run.file.chunk_bytes;
  row.cache_mb = run.cache_mb;
  row.sampler = run.sampler.ToString();
  row.is_default = run.is_default;
  row.batch = o.batch;
  row.step_ms = o.step_ms;
  std::vector<std::string> argv = {o.executable,
                                   "bench",
                                   file,
                                   "--json",
                                   "--no-ceilings",
                                   "--sampler",
                                   row.sampler,
                                   "--cache-mb",
                                   std::to_string(run.cache_mb),
                                   "--batch",
                                   std::to_string(o.batch),
                                   "--threads",
                                   std::to_string(o.threads),
                                   "--slots",
                                   std::to_string(o.slots),
                                   "--step-ms",
                                   Fixed("%g", o.step_ms),
                                   "--max-seconds",
                                   Fixed("%g", o.max_seconds)};
  if (o.min_seconds > 0 && (!o.cold || o.cold_each_epoch)) {
    argv.push_back("--min-seconds");
    argv.push_back(Fixed("%g", o.min_seconds));
  }
  // The input itself (a remote one, or an h5feed file stored as a variant) is read with its
  // dataset's name; a rechunked variant is an h5feed file, whose images are "images".
  if (!o.images.empty() && file == o.input.text()) argv.insert(argv.end(), {"--images", o.images});
  if (o.cold) argv.push_back("--cold");
  if (o.cold_each_epoch) argv.push_back("--cold-each-epoch");
  if (o.direct) argv.push_back("--direct");
  argv.insert(argv.end(), o.remote_flags.begin(), o.remote_flags.end());
  if (!o.augment.empty()) {
    argv.push_back("--augment");
    argv.push_back(o.augment);
  }
  const ProcessResult result = RunProcess(argv);
  if (result.exit_code == 130 || result.exit_code == 143) return false;
  if (result.exit_code != 0) {
    row.status = "failed";
    std::string why = LastLine(result.err);
    const std::string prefix = "h5feed bench: error: ";
    if (why.rfind(prefix, 0) == 0) why = why.substr(prefix.size());
    row.error = why.empty() ? "exit " + std::to_string(result.exit_code) : why;
    return true;
  }
  const auto j = nlohmann::json::parse(LastLine(result.out));
  row.threads = j.at("threads").get<int>();
  row.images = j.at("images").get<int64_t>();
  row.seconds = j.at("seconds").get<double>();
  row.images_per_s = j.at("images_per_s").get<double>();
  row.mb_per_s = j.at("mb_per_s").get<double>();
  row.chunk_reads_per_chunk = Number(j, "chunk_reads_per_chunk");
  row.cache_hit_rate = Number(j, "cache_hit_rate");
  row.wait_share = Number(j, "wait_share");
  row.cpu_cores_used = Number(j, "cpu_cores_used");
  row.peak_rss_mb = Number(j, "peak_rss_mb");
  row.shuffle_quality = Number(j, "shuffle_quality");
  row.random_shuffle_quality = Number(j, "random_shuffle_quality");
  row.chunks_per_batch = Number(j, "chunks_per_batch");
  row.random_chunks_per_batch = Number(j, "random_chunks_per_batch");
  row.classes_per_batch = Number(j, "classes_per_batch");
  row.random_classes_per_batch = Number(j, "random_classes_per_batch");
  row.label_entropy_bits = Number(j, "label_entropy_bits");
  row.random_label_entropy_bits = Number(j, "random_label_entropy_bits");
  row.few_classes = j.value("few_classes_per_batch", false);
  row.read_mb_per_s = Number(j, "read_mb_per_s");
  row.cold = j.value("cold", false) && j.value("cold_took_effect", false);
  row.status = j.value("complete", true) ? "ok" : "time limit";
  return true;
}

// "[3/49, 1:02] chunk 16, none, cache 256 MiB, chunks:4: 13332 images/s, 0.09 of the ceiling,
// shuffle quality 0.87". Appended piece by piece: GCC 12 warns falsely (-Wrestrict) about
// chains of string operator+ that start with a literal.
std::string ProgressLine(size_t done, size_t total, const std::string& elapsed,
                         const SweepRow& row) {
  std::string line = "[";
  line += std::to_string(done);
  line += "/";
  line += std::to_string(total);
  line += ", ";
  line += elapsed;
  line += "] ";
  line += row.Settings();
  line += ": ";
  if (!row.succeeded()) return line + "failed: " + row.error;
  line += Fixed("%.0f images/s", row.images_per_s);
  if (Measured(row.fraction_of_ceiling)) {
    line += Fixed(", %.2f of the ceiling", row.fraction_of_ceiling);
  }
  line += Fixed(", shuffle quality %.2f", row.shuffle_quality);
  if (row.status != "ok") line += " (" + row.status + ")";
  return line;
}

// What the report says of the runs timed under kShortRunSeconds (bench_run.h); empty: none.
std::string ShortRunsNote(const std::vector<SweepRow>& rows) {
  int64_t runs = 0, short_runs = 0;
  double shortest = 0;
  for (const SweepRow& row : rows) {
    if (row.kind == "reference" || row.status != "ok") continue;
    ++runs;
    if (row.seconds >= kShortRunSeconds) continue;
    shortest = short_runs == 0 ? row.seconds : std::min(shortest, row.seconds);
    ++short_runs;
  }
  if (short_runs == 0) return {};
  return std::to_string(short_runs) + " of " + std::to_string(runs) +
         " runs were timed over less than " + Fixed("%g s", kShortRunSeconds) +
         Fixed(" (the shortest %.1f ms)", shortest * 1000) +
         ": their rates are mostly start-up and scheduling, and differences between them are "
         "noise; give --min-seconds 1 (cold runs: with --cold-each-epoch), or sweep a larger "
         "file";
}

// What the report says of a --cold sweep's runs that started with their file still in the
// page cache (its drop did not take effect): they are warm runs, and nothing else would say so
// but a 0 in the csv's `cold` column. Empty when every run was cold, or none was asked to be.
std::string WarmRunsNote(const std::vector<SweepRow>& rows, const SweepOptions& o,
                         const std::string& work) {
  if (!o.cold) return {};
  int64_t runs = 0, warm = 0;
  for (const SweepRow& row : rows) {
    if (row.kind == "reference" || row.status != "ok") continue;
    ++runs;
    warm += row.cold ? 0 : 1;
  }
  if (warm == 0) return {};
  return "--cold asked for cold runs, but " + std::to_string(warm) + " of " + std::to_string(runs) +
         " started with their file still in the page cache: the drop did not take effect (a "
         "file system such as tmpfs keeps the pages, as does a process that maps or locks "
         "them), so they read memory, not the disk, and no disk rate judges them (`cold` 0 in "
         "results.csv). Keep the input and the variants' folder (--work-dir, here " +
         work + ") on a disk to measure it";
}

std::string Machine() {
  utsname name{};
  uname(&name);
  double load[1] = {0};
  getloadavg(load, 1);
  return std::to_string(UsableCores()) + " cores, " + name.sysname + " " + name.release + " " +
         name.machine + Fixed(", load average %.2f at the start", load[0]);
}

std::string Today() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  return text;
}

}  // namespace

SweepOutcome RunSweep(const SweepOptions& o, const std::atomic<bool>& cancel,
                      const std::function<void(const std::string&)>& say) {
  namespace fs = std::filesystem;
  SweepOutcome outcome;
  index::IndexOptions index_options;
  index_options.remote = o.remote;
  index_options.images = o.images;
  const index::DatasetIndex input = index::OpenDatasetIndex(o.input.text(), index_options);
  const std::unique_ptr<const FileKind> kind = FileKind::Of(input);
  const std::string problem = kind->OptionsProblem(
      {.encodings_or_chunk_bytes = !o.grid.encodings.empty() || !o.grid.chunk_bytes.empty(),
       .augment = !o.augment.empty()},
      input.path);
  if (!problem.empty()) throw Error(ErrorCode::kInvalidArgument, problem);
  // A remote file cannot be rewritten where it is served, nor has it a page cache: it is
  // measured as it is stored, over caches and samplers, and its ceiling is its link.
  const bool remote = o.input.remote();
  const SweepPlan plan = remote ? PlanRemoteSweep(o.grid, *kind, input.path, say)
                                : PlanSweep(kind->Variants(o.grid), o.grid, kind->Defaults());
  std::error_code error;
  fs::create_directories(o.out_dir, error);
  if (error) throw MakeError(ErrorCode::kIo, "cannot create {}: {}", o.out_dir, error.message());
  const std::string work = o.work_dir.empty() ? o.out_dir : o.work_dir;
  // Made as --out is: a --work-dir that did not exist was refused as "cannot read the free
  // space of DIR".
  fs::create_directories(work, error);
  if (error) throw MakeError(ErrorCode::kIo, "cannot create {}: {}", work, error.message());
  const uint64_t needed = kind->DiskBound(plan);
  CheckDiskBudget(work, needed, o.disk_budget);
  say("sweep " + input.path + ": " + cli::CountOf(static_cast<int64_t>(plan.runs.size()), "run") +
      " over " + cli::CountOf(static_cast<int64_t>(plan.files.size()), "file variant") +
      "; up to " + ToString(ByteSize(needed)) + " of temporary files in " + work);

  ReportContext context{o.command_line, input.path, Machine(), Today(), {}, ""};
  // What the page cache can hold of a file beside what runs now; read once, at the start.
  const uint64_t available = remote ? 0 : MemAvailableBytes();
  if (available > 0) {
    context.notes.push_back(
        "\"fits page cache\": the file's size against MemAvailable (" +
        ToString(ByteSize(available)) +
        ", /proc/meminfo) at the start of the sweep. A file that does not fit is read from disk "
        "in every epoch once the page cache drops it.");
  }
  if (const std::string note = kind->Note(o.grid); !note.empty()) {
    context.notes.push_back(note);
    say(note);
  }
  const int threads = o.threads > 0 ? o.threads : UsableCores();
  if (!o.augment.empty()) {
    // Measured by reading the input: for a remote one, over the link the runs measure.
    context.notes.push_back(remote ? "Every run augments (--augment " + o.augment +
                                         "); the augmentation's own rate is measured on local "
                                         "files only"
                                   : AugmentNote(o, threads));
    say(context.notes.back());
  }
  outcome.csv_path = o.out_dir + "/results.csv";
  outcome.report_path = o.out_dir + "/report.md";
  ResultsCsv csv(outcome.csv_path);
  const auto start = Clock::now();
  {
    RechunkedFiles files([&] { return kind->OpenImages(o.input.text()); }, work);
    size_t done = 0;
    for (size_t f = 0; f < plan.files.size() && !cancel; ++f) {
      const FileVariant& variant = plan.files[f];
      // Appended, not "[" + string: GCC 12 warns falsely (-Wrestrict) on that once inlined.
      std::string files_done = "[";
      files_done += std::to_string(f + 1) + "/" + std::to_string(plan.files.size()) + " files] ";
      std::string path;
      if (remote || kind->IsInput(variant)) {
        // Rewriting it would give the same file, minutes later (rechunking dominates a sweep).
        say(files_done + variant.Name() +
            " is how the input is stored: measured as it is, "
            "not rewritten; measuring the ceilings ...");
        path = o.input.text();
      } else {
        say(files_done + "rechunking to " + variant.Name() + " ...");
        const auto rechunk_start = Clock::now();
        try {
          path = files.Make(variant, threads, &cancel, {});
        } catch (const Error& e) {
          if (e.code() == ErrorCode::kCancelled) break;
          throw;
        }
        say("  written in " + Elapsed(rechunk_start) + "; measuring the ceilings ...");
      }
      if (!o.cold && !remote) WarmPageCache(path);
      CeilingOptions ceiling_options;
      ceiling_options.threads = threads;
      if (path == o.input.text()) ceiling_options.images_dataset = o.images;
      const Ceilings ceilings = remote ? Ceilings{} : MeasureCeilings(path, ceiling_options);
      // Cold runs are judged against the device's rate for this file (it drops the file).
      std::optional<DiskRate> disk;
      if (o.cold && !remote) disk = MeasureDiskRate(path);
      FileSize file_size{remote ? input.file_bytes : fs::file_size(path), available};
      // The rows name the most images a chunk of the file holds: K, or as many as fit C bytes.
      const int64_t chunk_samples =
          path == o.input.text()
              ? input.chunk_samples
              : index::OpenDatasetIndex(path, index::IndexOptions{}).chunk_samples;
      for (const SweepRun& run : plan.runs) {
        if (!(run.file == variant) || cancel) continue;
        SweepRow row;
        if (!RunOne(o, run, path, row)) break;
        row.chunk_samples = chunk_samples;
        if (remote) {
          ApplyRemoteFile(row, file_size);
        } else {
          ApplyCeilings(row, ceilings, file_size);
          ApplyDiskRate(row, disk);
        }
        csv.Append(row);
        outcome.rows.push_back(row);
        ++done;
        say(ProgressLine(done, plan.runs.size(), Elapsed(start), row));
      }
    }
  }  // the rechunked files are removed here, Ctrl-C or not
  // h5py reads a URL through HDF5's ROS3 driver, which has no s3:// form.
  std::string no_reference = kind->NoReferenceLoaders();
  if (no_reference.empty() && o.input.scheme() == Location::Scheme::kS3) {
    no_reference =
        "No h5py reference: h5py's ROS3 driver reads http(s):// URLs, not s3://; sweep a "
        "pre-signed URL of the object to compare";
  }
  if (o.compare_h5py && !no_reference.empty()) {
    context.notes.push_back(no_reference);
    say(no_reference);
  } else if (o.compare_h5py && !cancel) {
    if (!o.cold && !remote) WarmPageCache(o.input.text());
    CeilingOptions ceiling_options;
    ceiling_options.threads = o.reference.workers;
    ceiling_options.images_dataset = o.images;
    const Ceilings ceilings =
        remote ? Ceilings{} : MeasureCeilings(o.input.text(), ceiling_options);
    for (const std::string& loader : ReferenceLoaderNames()) {
      if (cancel) break;
      say("reference: DataLoader + h5py, " + loader + " ...");
      SweepRow row = RunReferenceLoader(o.reference, loader, o.input, input.chunk_samples,
                                        CompressionOf(input));
      if (cancel) break;
      const FileSize file_size{input.file_bytes, available};
      if (remote) {
        ApplyRemoteFile(row, file_size);
      } else {
        ApplyCeilings(row, ceilings, file_size);
      }
      csv.Append(row);
      outcome.rows.push_back(row);
      say("  " + (row.succeeded() ? Fixed("%.0f images/s", row.images_per_s) : row.error));
    }
  }
  if (const std::string note = ShortRunsNote(outcome.rows); !note.empty()) {
    context.notes.push_back(note);
    say(note);
  }
  if (const std::string note = WarmRunsNote(outcome.rows, o, work); !note.empty()) {
    context.notes.push_back(note);
    say(note);
  }
  outcome.interrupted = cancel;
  outcome.planned_runs = plan.runs.size();
  if (outcome.interrupted) {
    context.notes.push_back("Interrupted: " + std::to_string(outcome.rows.size()) + " of " +
                            std::to_string(plan.runs.size()) +
                            " runs finished; the table "
                            "holds those.");
  }
  outcome.recommendation = Recommend(outcome.rows, o.recommend);
  outcome.recommendation.input_file_mib = static_cast<double>(input.file_bytes) / (1 << 20);
  outcome.plot = DrawThroughputPlot(outcome.rows, o.out_dir);
  if (outcome.plot.drawn) {
    context.plot = "throughput.png";
  } else {
    context.notes.push_back("No plot: " + outcome.plot.message);
  }
  WriteTextFile(outcome.report_path,
                SweepReportMarkdown(outcome.rows, outcome.recommendation, o.recommend, context));
  return outcome;
}

}  // namespace h5feed::bench
