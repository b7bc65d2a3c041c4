// `h5feed merge PART... OUT.h5`: the parts of a conversion in parts (`convert --part`,
// `rechunk --part`) joined into one ordinary h5feed file, their compressed chunks copied as
// they are (converters/merge.h). Like cp, the last path is the output.

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "conversion_runner.h"
#include "exit_codes.h"
#include "h5feed/error.h"
#include "input_paths.h"
#include "interrupt_guard.h"
#include "merge.h"
#include "number_checks.h"
#include "output_path.h"
#include "progress_bar.h"
#include "reports/merge_report.h"
#include "reports/report_json.h"

namespace h5feed::cli {
namespace {

struct MergeFlags {
  std::vector<std::string> paths;  // the parts, then the output
  uint64_t seed = 0;
  bool force = false;
  bool quiet = false;
  bool json = false;
};

int RunMerge(const MergeFlags& flags) {
  const std::vector<std::string> parts(flags.paths.begin(), flags.paths.end() - 1);
  for (const std::string& part : parts) {
    const std::string problem = InputProblem(part, InputKind::kFile);
    if (!problem.empty()) return ReportUsageError("merge", "part " + problem);
  }
  if (const std::string problem = converters::OutputProblem(flags.paths.back(), parts);
      !problem.empty()) {
    return ReportUsageError("merge", problem);
  }
  converters::MergeOptions options;
  options.seed = flags.seed;
  options.overwrite = flags.force;
  options.option_names = ConversionFlagNames();
  try {
    converters::CheckOutputPlace(flags.paths.back(), options.overwrite, options.option_names);
  } catch (const std::exception& e) {
    ReportError("merge", e);
    return kExitUsage;
  }
  InterruptGuard interrupt;
  options.cancel = &interrupt.flag();
  std::unique_ptr<ProgressBar> bar;  // made at the first chunk, when the count is known
  const bool draw = !flags.quiet && ProgressBar::StderrIsTerminal();
  options.on_progress = [&](const converters::MergeProgress& progress) {
    if (!bar) bar = std::make_unique<ProgressBar>("merging", "chunks", progress.chunks_total, draw);
    bar->Update(progress.chunks_done, 0);
  };
  try {
    const converters::MergeReport report =
        converters::MergeParts(parts, flags.paths.back(), options);
    if (bar) bar->Finish();
    const ReportValue value = converters::MergeValue(report);
    if (flags.json) {
      std::fputs(reports::ToJson(value).c_str(), stdout);
    } else if (!flags.quiet) {
      std::fputs(reports::MergeText(value).c_str(), stdout);
    }
    return report.skipped > 0 ? kExitSkipped : kExitOk;
  } catch (const Error& e) {
    if (bar) bar->Finish();
    if (e.code() == ErrorCode::kCancelled) {
      std::fprintf(stderr, "\nh5feed merge: %s\n", e.what());
      return interrupt.signal_number() ? interrupt.exit_code() : kExitInterrupted;
    }
    return ReportError("merge", e);
  } catch (const std::exception& e) {
    if (bar) bar->Finish();
    return ReportError("merge", e);
  }
}

// The parts and the output are one positional of CLI11's (with two, CLI11 2.1 gives every
// argument to the first, or, with positionals_at_end, counts options among the last ones),
// whose usage it writes "PART... OUT...": this writes it as it is read, "PART... OUT".
class PartsThenOutUsage : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App* app, std::string name) const override {
    std::string usage = CLI::Formatter::make_usage(app, std::move(name));
    const std::string repeated = "PART... OUT...";
    if (const size_t at = usage.find(repeated); at != std::string::npos) {
      usage.replace(at, repeated.size(), "PART... OUT");
    }
    return usage;
  }
};

}  // namespace

void AddMergeCommand(CLI::App& app, Runner& run) {
  auto flags = std::make_shared<MergeFlags>();
  CLI::App* command = app.add_subcommand(
      "merge",
      "Join the parts of a conversion in parts (convert/rechunk --part K/N) into one h5feed "
      "file: their compressed chunks are copied without decompressing, interleaved in a seeded "
      "order so chunks of different parts mix. Every part must be given once; parts of another "
      "conversion or options are refused");
  command
      ->add_option("PART... OUT", flags->paths,
                   "The parts (any order, e.g. train-*-of-00004.h5), then the file to write")
      ->required()
      ->expected(2, -1);
  command->formatter(std::make_shared<PartsThenOutUsage>());
  command
      ->add_option("--seed", flags->seed,
                   "Seed of the interleaving of the parts' chunks (default 0)")
      ->check(WholeUint64());
  command->add_flag(
      "--force", flags->force,
      "Replace OUT if it exists as a file (never replaced otherwise; a device or FIFO never)");
  command->add_flag("-q,--quiet", flags->quiet, "Print nothing but errors");
  command->add_flag("--json", flags->json,
                    "Print the report as one JSON object (for scripts; h5feed.merge returns the "
                    "same keys) instead of the summary, even with --quiet");
  command->callback([flags, &run] { run = [flags] { return RunMerge(*flags); }; });
}

}  // namespace h5feed::cli
