#include "command_error.h"

#include <CLI/CLI.hpp>
#include <cstdio>

#include "exit_codes.h"

namespace h5feed::cli {

std::string ErrorLine(const std::string& command_name, const std::string& message) {
  return (command_name.empty() ? "h5feed" : "h5feed " + command_name) + ": error: " + message;
}

int ReportError(const std::string& command_name, const std::exception& error) {
  std::fprintf(stderr, "%s\n", ErrorLine(command_name, error.what()).c_str());
  return kExitFailed;
}

int ReportUsageError(const std::string& command_name, const std::string& message) {
  std::fprintf(stderr, "%s\n", ErrorLine(command_name, message).c_str());
  return kExitUsage;
}

std::string ParseFailureMessage(const CLI::App* app, const CLI::Error& error) {
  // The subcommands chosen so far, outermost first: the one the error is about is the last.
  std::string command_name;
  for (const CLI::App* chosen = app; !chosen->get_subcommands().empty();) {
    chosen = chosen->get_subcommands().front();
    command_name += (command_name.empty() ? "" : " ") + chosen->get_name();
  }
  const std::string help =
      command_name.empty() ? "h5feed --help" : "h5feed " + command_name + " --help";
  // One line: a script (bench sweep's, of its runs) takes the last line for the reason.
  return ErrorLine(command_name, error.what()) + " (run '" + help + "' for the options)\n";
}

}  // namespace h5feed::cli
