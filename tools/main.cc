// h5feed: convert image datasets to chunked HDF5, inspect them, and feed them to trainers.

#include <CLI/CLI.hpp>

#include "command_error.h"
#include "commands.h"
#include "exit_codes.h"
#include "subcommand_choice.h"

int main(int argc, char** argv) {
  CLI::App app{
      "h5feed keeps GPUs busy training image models on data stored in HDF5: it converts "
      "image datasets to chunked, compressed uint8 HDF5 and reads them back in shuffled "
      "batches. Run 'h5feed COMMAND --help' for a command's options.",
      "h5feed"};
  app.set_version_flag("--version", "h5feed " H5FEED_VERSION);
  // One command; CLI11 copies the maximum into the commands added below (one source of
  // convert). RequireOneSubcommand, after them, reports a missing or unknown one.
  app.require_subcommand(1);
  // Every command line error is reported as the commands report theirs (command_error.h).
  app.failure_message(h5feed::cli::ParseFailureMessage);
  h5feed::cli::Runner run;
  h5feed::cli::AddConvertCommand(app, run);
  h5feed::cli::AddRechunkCommand(app, run);
  h5feed::cli::AddMergeCommand(app, run);
  h5feed::cli::AddInspectCommand(app, run);
  h5feed::cli::AddVerifyCommand(app, run);
  h5feed::cli::AddBenchCommand(app, run);
  h5feed::cli::RequireOneSubcommand(app, "command");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);  // prints --help, --version, or the usage error
    return code == 0 ? h5feed::cli::kExitOk : h5feed::cli::kExitUsage;
  }
  return run ? run() : h5feed::cli::kExitUsage;
}
