#include "conversion_runner.h"

#include <cstdio>

#include <CLI/CLI.hpp>

#include "conversion.h"
#include "exit_codes.h"
#include "h5feed/error.h"
#include "interrupt_guard.h"
#include "progress_bar.h"
#include "units.h"

namespace h5feed::cli {

void AddConversionFlags(CLI::App& command, ConversionFlags& flags, bool shuffle_by_default) {
  command
      .add_option("--chunk", flags.chunk,
                  "Images per chunk, the unit the reader reads and decompresses. "
                  "Default: as many as make about 4 MiB (at most all the images)")
      ->check(CLI::NonNegativeNumber);
  command
      .add_option("--compression", flags.compression,
                  "none | zstd[:LEVEL] (1-19) | gzip[:LEVEL] (1-9). zstd files need h5feed's "
                  "HDF5 plugin to be read by other HDF5 programs; gzip needs nothing")
      ->capture_default_str();
  command.add_option_function<uint64_t>(
      "--seed",
      [&flags](const uint64_t& seed) {
        flags.seed = seed;
        flags.seed_given = true;
      },
      shuffle_by_default ? "Seed of the shuffled stored order (default 0)"
                         : "Shuffle the stored order with this seed (default: keep the "
                           "source order, which reads a chunked source fastest)");
  command.add_flag("--no-shuffle", flags.no_shuffle, "Keep the source order");
  command.add_option("--threads", flags.threads, "Worker threads (default: all cores)")
      ->check(CLI::NonNegativeNumber);
  command
      .add_option("--memory-limit", flags.memory_limit,
                  "Memory for images in flight, whatever their dimensions and --threads: "
                  "chunk buffers (at most half) and decoding. E.g. 512M, 4G (K, M, G, T are "
                  "powers of 1024). Large images are decoded row by row (PNG), at a reduced "
                  "DCT scale (JPEG) or one at a time; one that needs more than the limit "
                  "allows is skipped and recorded. The program's own ~25 MiB and zstd's "
                  "per-thread state (~1 MiB at level 3) come on top")
      ->capture_default_str();
  command.add_flag("--force", flags.force, "Replace OUT if it exists (never replaced otherwise)");
  command.add_flag("-q,--quiet", flags.quiet, "Print nothing but errors");
  command.add_flag("--strict", flags.strict,
                   "Fail on the first broken input instead of skipping and recording it");
}

int ReportError(const std::string& command_name, const std::exception& error) {
  std::fprintf(stderr, "h5feed %s: error: %s\n", command_name.c_str(), error.what());
  return kExitFailed;
}

namespace {

void PrintSummary(const std::string& input, const ConvertReport& report, int64_t offered) {
  double rate = report.seconds > 0 ? offered / report.seconds : 0;
  std::printf("converted %s of %s images from %s to %s in %s (%s images/s)\n",
              FormatCount(report.images).c_str(), FormatCount(offered).c_str(), input.c_str(),
              report.path.c_str(), FormatDuration(report.seconds).c_str(),
              FormatCount(static_cast<int64_t>(rate)).c_str());
  double ratio = report.stored_bytes > 0 ? double(report.raw_bytes) / report.stored_bytes : 0;
  std::printf(
      "  %lldx%lldx%lld uint8, %s chunks of %s images, %s: %s -> %s (%.2fx), %s\n",
      static_cast<long long>(report.shape.height), static_cast<long long>(report.shape.width),
      static_cast<long long>(report.shape.channels), FormatCount(report.chunks).c_str(),
      FormatCount(report.chunk_images).c_str(), report.compression.ToString().c_str(),
      FormatBytes(report.raw_bytes).c_str(), FormatBytes(report.stored_bytes).c_str(), ratio,
      report.shuffled ? ("shuffled with seed " + std::to_string(report.seed)).c_str()
                      : "in source order");
  if (!report.skipped.empty()) {
    std::printf("  %s skipped (recorded in %s:/skipped_sources):\n",
                FormatCount(static_cast<int64_t>(report.skipped.size())).c_str(),
                report.path.c_str());
    for (const SkippedSource& skipped : report.skipped) {
      std::printf("    %s: %s\n", skipped.source.c_str(), skipped.reason.c_str());
    }
  }
}

}  // namespace

int RunConversion(const std::string& command_name, const std::string& input,
                  const std::function<std::unique_ptr<SampleSource>(MemoryBudget&)>& open_source,
                  const ConversionFlags& flags, bool shuffle_by_default) {
  ConvertOptions options;
  std::unique_ptr<MemoryBudget> budget;
  try {
    options.compression = Compression::Parse(flags.compression);
    budget = std::make_unique<MemoryBudget>(ParseMemorySize(flags.memory_limit));
  } catch (const std::exception& e) {
    ReportError(command_name, e);
    return kExitUsage;
  }
  options.memory = budget.get();
  options.chunk_images = flags.chunk;
  options.shuffle = !flags.no_shuffle && (shuffle_by_default || flags.seed_given);
  options.seed = flags.seed;
  options.threads = flags.threads;
  options.overwrite = flags.force;
  options.strict = flags.strict;

  InterruptGuard interrupt;
  options.cancel = &interrupt.flag();
  try {
    std::unique_ptr<SampleSource> source = open_source(*budget);
    bool show_bar = !flags.quiet && ProgressBar::StderrIsTerminal();
    ProgressBar bar("converting", "img", source->count(), show_bar);
    options.on_progress = [&bar](const ConvertProgress& p) { bar.Update(p.done, p.skipped); };
    if (!flags.quiet) {
      options.on_skip = [&bar](const SkippedSource& s) {
        bar.Message("warning: skipped " + s.source + ": " + s.reason);
      };
    }
    ConvertReport report = Convert(*source, flags.output, options);
    bar.Finish();
    if (!flags.quiet) PrintSummary(input, report, source->count());
    return report.skipped.empty() ? kExitOk : kExitSkipped;
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kCancelled) {
      std::fprintf(stderr, "\nh5feed %s: %s\n", command_name.c_str(), e.what());
      return interrupt.signal_number() ? interrupt.exit_code() : kExitInterrupted;
    }
    return ReportError(command_name, e);
  } catch (const std::exception& e) {
    return ReportError(command_name, e);
  }
}

}  // namespace h5feed::cli
