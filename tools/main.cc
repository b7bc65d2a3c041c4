// h5feed: convert image datasets to chunked HDF5, inspect them, and feed them to trainers.

#include <CLI/CLI.hpp>

#include <iostream>
#include <string_view>

#include "command_error.h"
#include "commands.h"
#include "exit_codes.h"
#include "subcommand_choice.h"

namespace {

// Whether the command line asks for help (-h or --help among its words): CLI11 checks the
// values it has read (an input that does not exist, too few positionals) before it looks for
// --help, so `h5feed bench train.h5 --help` with a mistyped path printed that error, not the
// options the user asked for.
bool AsksForHelp(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--") return false;
    if (word == "-h" || word == "--help") return true;
  }
  return false;
}

}  // namespace

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
    // Success: --help or --version, answered by exit() below.
    if (dynamic_cast<const CLI::Success*>(&e) == nullptr && AsksForHelp(argc, argv)) {
      std::cout << app.help();  // the help of the command chosen, as --help alone prints it
      return h5feed::cli::kExitOk;
    }
    int code = app.exit(e);  // prints --help, --version, or the usage error
    return code == 0 ? h5feed::cli::kExitOk : h5feed::cli::kExitUsage;
  }
  return run ? run() : h5feed::cli::kExitUsage;
}
