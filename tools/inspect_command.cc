// `h5feed inspect FILE.h5 [--json]`: what an HDF5 file holds, for h5feed files and others.

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "command_error.h"
#include "commands.h"
#include "exit_codes.h"
#include "h5feed/error.h"
#include "h5feed/inspect.h"
#include "input_paths.h"
#include "number_checks.h"
#include "remote_options_flags.h"
#include "reports/error_report.h"
#include "reports/file_summary_report.h"
#include "reports/report_json.h"

namespace h5feed::cli {

void AddInspectCommand(CLI::App& app, Runner& run) {
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto no_open_probe = std::make_shared<bool>(false);
  auto stall_seconds = std::make_shared<int>(60);
  auto remote = std::make_shared<RemoteOptions>();
  CLI::App* command = app.add_subcommand(
      "inspect",
      "Show what an HDF5 file holds: image count, shape and layout, chunk shape and count, "
      "compression and its ratio, classes with their counts, format version, skipped sources, "
      "attributes and every dataset; for images at their own size (format version 2), their "
      "encodings (raw or JPEG), sizes, aspect ratios, images per chunk and stored bytes against "
      "the pixels'. Works on any HDF5 file (h5py-made ones too) and says "
      "whether 'h5feed rechunk' can convert it. Reads metadata, labels and the per-image table only, "
      "never pixels");
  command
      ->add_option("FILE", *path, "The HDF5 file to inspect: a path, or an http(s):// or s3:// URL")
      ->required();
  command->add_flag("--json", *json,
                    "Print one JSON object with every field (for scripts) instead of text");
  CLI::Option* probe_off =
      command->add_flag("--no-open-probe", *no_open_probe,
                        "Open the file in this process only, without first opening it in a "
                        "separate one (the open probe), which turns HDF5 crashing or hanging on a "
                        "damaged file into an error message");
  command
      ->add_option("--stall-seconds", *stall_seconds,
                   "With the open probe: report the file as damaged when opening it makes no "
                   "progress for this long (HDF5 hangs on some damaged structures)")
      ->check(WholeInRange(1, 86400))
      ->excludes(probe_off)
      ->capture_default_str();
  AddRemoteOptions(*command, *remote);
  command->callback([=, &run] {
    run = [=] {
      // Checked here, not while parsing, so that --json gets its error object too.
      if (const std::string problem = InputProblem(*path, InputKind::kFileOrUrl);
          !problem.empty()) {
        const Error missing(ErrorCode::kNotFound, problem);
        if (*json) std::cout << reports::ToJson(reports::ErrorValue(*path, missing)) << std::flush;
        return ReportUsageError("inspect", problem);
      }
      try {
        InspectOptions options;
        options.open_probe = !*no_open_probe;
        options.open_probe_stall_seconds = *stall_seconds;
        options.remote = *remote;
        options.on_warning = [](const std::string& warning) {
          std::cerr << "h5feed inspect: warning: " << warning << "\n";
        };
        const ReportValue summary = SummaryValue(InspectFile(*path, options));
        std::cout << (*json ? reports::ToJson(summary) : reports::SummaryText(summary))
                  << std::flush;
        return kExitOk;
      } catch (const std::exception& e) {  // a bug or out of memory too: one line, no abort
        if (*json) std::cout << reports::ToJson(reports::ErrorValue(*path, e)) << std::flush;
        return ReportInputError("inspect", e);
      }
    };
  });
}

}  // namespace h5feed::cli
