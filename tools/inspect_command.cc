// `h5feed inspect FILE.h5 [--json]`: what an HDF5 file holds, for h5feed files and others.

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "commands.h"
#include "exit_codes.h"
#include "format/file_summary.h"
#include "h5feed/error.h"

namespace h5feed::cli {

void AddInspectCommand(CLI::App& app, Runner& run) {
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* command = app.add_subcommand(
      "inspect",
      "Show what an HDF5 file holds: image count, shape and layout, chunk shape and count, "
      "compression and its ratio, classes with their counts, format version, skipped sources, "
      "attributes and every dataset. Works on any HDF5 file (h5py-made ones too) and says "
      "whether 'h5feed rechunk' can convert it. Reads metadata and labels only, never pixels");
  command->add_option("FILE", *path, "The HDF5 file to inspect")->required();
  command->add_flag("--json", *json,
                    "Print one JSON object with every field (for scripts) instead of text");
  command->callback([=, &run] {
    run = [=] {
      try {
        FileSummary summary = SummarizeFile(*path);
        std::cout << (*json ? ToJson(summary) : ToText(summary)) << std::flush;
        return kExitOk;
      } catch (const Error& e) {
        std::cerr << "h5feed inspect: " << e.what() << "\n";
        return kExitFailed;
      } catch (const std::exception& e) {  // a bug or out of memory: still one line, no abort
        std::cerr << "h5feed inspect: " << e.what() << "\n";
        return kExitFailed;
      }
    };
  });
}

}  // namespace h5feed::cli
