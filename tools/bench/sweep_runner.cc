// The sweep's orchestration (sweep_runner.h).

#include "sweep_runner.h"

#include <sys/utsname.h>

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
#include "enum_names.h"
#include "h5feed/error.h"
#include "h5feed/location.h"
#include "h5feed/remote_options.h"
#include "h5feed/writer.h"
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

// The input's compression in the sweep's words (Compression::ToString: "none", "zstd:3",
// "gzip:6"), or "other" for a filter h5feed does not write.
std::string CompressionOf(const index::DatasetIndex& index) {
  if (index.filters.empty()) return Compression{Compression::Kind::kNone, 0}.ToString();
  for (const index::FilterStep& f : index.filters) {
    if (f.kind != index::FilterKind::kZstd && f.kind != index::FilterKind::kDeflate) continue;
    const Compression::Kind kind =
        f.kind == index::FilterKind::kZstd ? Compression::Kind::kZstd : Compression::Kind::kDeflate;
    Compression compression = Compression::Parse(NameOf(kind));  // at the kind's default level
    if (!f.client_data.empty()) compression.level = static_cast<int>(f.client_data[0]);
    return compression.ToString();
  }
  return "other";
}

// How an own-size input is stored, as a file variant.
FileVariant InputVariant(const index::DatasetIndex& input) {
  const std::string stored = CompressionOf(input);
  FileVariant file;
  file.compression = Compression::Parse(stored == "other" ? "none" : stored);
  file.own_size = true;
  file.encoding = StoredEncoding::Parse(input.encoding.empty() ? "raw" : input.encoding);
  file.chunk_bytes = input.chunk_bytes();
  return file;
}

// The variants of an own-size input: --encodings (default: the input's own, raw and jpeg:90)
// x --chunk-bytes (default: the input's).
void SetOwnSizeGrid(SweepGrid& grid, const SweepOptions& o, const index::DatasetIndex& input) {
  const FileVariant stored = InputVariant(input);
  grid.own_size = true;
  if (o.encodings.empty()) {
    grid.encodings = {stored.encoding};
    for (const char* other : {"raw", "jpeg:90"}) {
      const StoredEncoding encoding = StoredEncoding::Parse(other);
      if (!(encoding == stored.encoding)) grid.encodings.push_back(encoding);
    }
  } else {
    grid.encodings = ParseEncodings(o.encodings);
  }
  grid.chunk_bytes = o.chunk_bytes.empty() ? std::vector<int64_t>{stored.chunk_bytes}
                                           : ParseChunkBytes(o.chunk_bytes);
}

// Whether `variant` is exactly how the input h5feed file is stored (same images per chunk, same
// compression and level), so that rechunking it would only copy it.
bool IsInputItself(const index::DatasetIndex& input, const FileVariant& variant) {
  if (input.location.remote()) return true;  // PlanRemoteSweep planned nothing else
  if ((input.stored_layout == StoredLayout::kFlat) != variant.own_size) return false;
  if ((input.stored_layout == StoredLayout::kFlat)) {
    return variant == InputVariant(input);
  }
  if (!input.is_h5feed || input.chunk_samples != variant.chunk_samples) return false;
  const std::string stored = CompressionOf(input);
  if (stored == "other") return false;
  return Compression::Parse(stored) == variant.compression;
}

// The plan for a remote input: the grid's caches and samplers (and h5feed's defaults) over the
// file as it is stored.
SweepPlan PlanRemoteSweep(SweepGrid grid, const index::DatasetIndex& input,
                          const std::function<void(const std::string&)>& say) {
  const std::string stored = CompressionOf(input);
  const FileVariant as_stored =
      (input.stored_layout == StoredLayout::kFlat)
          ? InputVariant(input)
          : FileVariant{input.chunk_samples,
                        Compression::Parse(stored == "other" ? "none" : stored)};
  say("sweep " + input.path + " is remote: measured as it is stored (" + as_stored.Name() +
      "), over the caches and samplers asked for; to compare chunk sizes and compressions, "
      "sweep a local copy, then upload the best");
  grid.chunks = {as_stored.chunk_samples};
  grid.compressions = {as_stored.compression};
  grid.own_size = as_stored.own_size;
  grid.encodings = {as_stored.encoding};
  grid.chunk_bytes = {as_stored.chunk_bytes};
  SweepRun defaults = DefaultRun(as_stored.chunk_samples);
  defaults.file = as_stored;
  return PlanSweep(grid, defaults, as_stored);
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
  const AugmentCost cost =
      MeasureAugmentCost(o.input, ParseAugmentSpec(o.augment), threads, o.batch, 0);
  return "Every run augments (--augment " + o.augment + ", float32 " +
         std::to_string(cost.out_height) + "x" + std::to_string(cost.out_width) +
         "): the augmentation alone transforms " + Fixed("%.0f", cost.images_per_s) +
         " images/s on " + std::to_string(threads) + " threads, the most any run can deliver.";
}

// One combination: `h5feed bench FILE --json ...` in a child. Returns false when Ctrl-C
// stopped it (the row is then dropped).
bool RunOne(const SweepOptions& o, const SweepRun& run, const std::string& file, SweepRow& row) {
  row.kind = run.in_grid ? "grid" : "defaults";
  row.chunk_samples = run.file.chunk_samples;
  row.compression = run.file.compression.ToString();
  if (run.file.own_size) {
    row.encoding = run.file.encoding.ToString();
    row.chunk_bytes = run.file.chunk_bytes;
  }
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
  if (o.cold) argv.push_back("--cold");
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
  const index::DatasetIndex input = index::OpenDatasetIndex(o.input, index_options);
  // A remote file cannot be rewritten where it is served, nor has it a page cache: it is
  // measured as it is stored, over caches and samplers, and its ceiling is its link.
  const bool remote = IsRemoteLocation(o.input);
  if ((input.stored_layout == StoredLayout::kFlat) && o.augment.empty()) {
    throw MakeError(
        ErrorCode::kInvalidArgument,
        "{} stores its images at their own sizes: every run must crop them to one size; give "
        "--augment, e.g. --augment rrc=224,flip",
        input.path);
  }
  if (!(input.stored_layout == StoredLayout::kFlat) &&
      (!o.encodings.empty() || !o.chunk_bytes.empty())) {
    throw MakeError(
        ErrorCode::kInvalidArgument,
        "--encodings and --chunk-bytes sweep files of images at their own size (format version 2); "
        "{} stores one image size: sweep --chunks and --compression",
        input.path);
  }
  SweepGrid grid = o.grid;
  if ((input.stored_layout == StoredLayout::kFlat)) SetOwnSizeGrid(grid, o, input);
  const SweepPlan plan =
      remote ? PlanRemoteSweep(grid, input, say)
      : (input.stored_layout == StoredLayout::kFlat)
          ? PlanSweep(grid, DefaultOwnSizeRun(), InputVariant(input))
          : PlanSweep(grid, DefaultRun(DefaultChunkImages(input.shape, input.samples)));
  std::error_code error;
  fs::create_directories(o.out_dir, error);
  if (error) throw MakeError(ErrorCode::kIo, "cannot create {}: {}", o.out_dir, error.message());
  const std::string work = o.work_dir.empty() ? o.out_dir : o.work_dir;
  uint64_t pixel_bytes = 0;  // own size: the sum of the images' H x W x C
  for (int64_t row = 0; row < input.samples; ++row) pixel_bytes += input.rows.at(row).shape.bytes();
  const uint64_t needed =
      (input.stored_layout == StoredLayout::kFlat)
          ? OwnSizeVariantDiskBound(plan, input.samples, pixel_bytes, input.sample_bytes())
          : VariantDiskBound(plan, input.samples, input.sample_bytes());
  CheckDiskBudget(work, needed, o.disk_budget);
  say("sweep " + input.path + ": " + std::to_string(plan.runs.size()) + " runs over " +
      std::to_string(plan.files.size()) + " file variants; up to " + ToString(ByteSize(needed)) +
      " of temporary files in " + work);

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
  if ((input.stored_layout == StoredLayout::kFlat)) {
    context.notes.push_back(
        "The input stores its images at their own sizes (" + input.encoding +
        "): its variants are encodings x chunk bytes, each made by decoding the input's images "
        "at their stored sizes and writing them again. The input's own encoding and chunk "
        "size are measured on the input itself; any other JPEG variant made from a JPEG input "
        "is a second generation of JPEG compression.");
    say(context.notes.back());
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
    RechunkedFiles files(o.input, work);
    size_t done = 0;
    for (size_t f = 0; f < plan.files.size() && !cancel; ++f) {
      const FileVariant& variant = plan.files[f];
      // Appended, not "[" + string: GCC 12 warns falsely (-Wrestrict) on that once inlined.
      std::string files_done = "[";
      files_done += std::to_string(f + 1) + "/" + std::to_string(plan.files.size()) + " files] ";
      std::string path;
      if (IsInputItself(input, variant)) {
        // Rewriting it would give the same file, minutes later (rechunking dominates a sweep).
        say(files_done + variant.Name() +
            " is how the input is stored: measured as it is, "
            "not rewritten; measuring the ceilings ...");
        path = o.input;
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
      const Ceilings ceilings = remote ? Ceilings{} : MeasureCeilings(path, ceiling_options);
      FileSize file_size{remote ? input.file_bytes : fs::file_size(path), available};
      // An own-size variant's chunks hold as many images as fit: the most any holds.
      const int64_t chunk_samples =
          variant.own_size && !remote && path != o.input
              ? index::OpenDatasetIndex(path, index::IndexOptions{}).chunk_samples
              : input.chunk_samples;
      for (const SweepRun& run : plan.runs) {
        if (!(run.file == variant) || cancel) continue;
        SweepRow row;
        if (!RunOne(o, run, path, row)) break;
        if (variant.own_size) row.chunk_samples = chunk_samples;
        if (remote) {
          ApplyRemoteFile(row, file_size);
        } else {
          ApplyCeilings(row, ceilings, file_size);
        }
        csv.Append(row);
        outcome.rows.push_back(row);
        ++done;
        say(ProgressLine(done, plan.runs.size(), Elapsed(start), row));
      }
    }
  }  // the rechunked files are removed here, Ctrl-C or not
  // h5py reads a URL through HDF5's ROS3 driver, which has no s3:// form.
  const bool h5py_reads_it = Location(o.input).scheme() != Location::Scheme::kS3;
  if (o.compare_h5py && !h5py_reads_it && !(input.stored_layout == StoredLayout::kFlat)) {
    context.notes.push_back(
        "No h5py reference: h5py's ROS3 driver reads http(s):// URLs, not "
        "s3://; sweep a pre-signed URL of the object to compare");
    say(context.notes.back());
  }
  if (o.compare_h5py && (input.stored_layout == StoredLayout::kFlat)) {
    context.notes.push_back(
        "No reference loaders (--compare-h5py): they read a file of one image size, and this "
        "one stores its images at their own sizes");
    say(context.notes.back());
  }
  if (o.compare_h5py && h5py_reads_it && !(input.stored_layout == StoredLayout::kFlat) && !cancel) {
    if (!o.cold && !remote) WarmPageCache(o.input);
    CeilingOptions ceiling_options;
    ceiling_options.threads = o.reference.workers;
    const Ceilings ceilings = remote ? Ceilings{} : MeasureCeilings(o.input, ceiling_options);
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
  outcome.interrupted = cancel;
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
