#include "command_error.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "exit_codes.h"
#include "h5feed/error.h"

namespace h5feed::cli {

std::string ErrorLine(const std::string& command_name, const std::string& message) {
  return (command_name.empty() ? "h5feed" : "h5feed " + command_name) + ": error: " + message;
}

int ReportError(const std::string& command_name, const std::exception& error) {
  std::fprintf(stderr, "%s\n", ErrorLine(command_name, error.what()).c_str());
  return kExitFailed;
}

int ReportInputError(const std::string& command_name, const std::exception& error) {
  ReportError(command_name, error);
  const auto* h5feed_error = dynamic_cast<const Error*>(&error);
  return h5feed_error != nullptr && h5feed_error->missing_input() ? kExitUsage : kExitFailed;
}

int ReportUsageError(const std::string& command_name, const std::string& message) {
  std::fprintf(stderr, "%s\n", ErrorLine(command_name, message).c_str());
  return kExitUsage;
}

namespace {

// CLI11's "Could not convert: --batch = 1.5" (a value its number checks passed, which the
// option's integer type then refused) as the other number messages say it: "--batch: must be
// a whole number, not 1.5". Other messages are kept.
std::string Reworded(const CLI::App* command, const CLI::Error& error) {
  const std::string message = error.what();
  const std::string prefix = "Could not convert: ";
  const size_t equals = message.find(" = ");
  if (message.rfind(prefix, 0) != 0 || equals == std::string::npos) return message;
  const std::string name = message.substr(prefix.size(), equals - prefix.size());
  const CLI::Option* option = command->get_option_no_throw(name);
  if (option == nullptr) return message;
  const std::string type = option->get_type_name();
  const bool whole = type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0;
  return name + ": must be " + (whole ? "a whole number" : "a number") + ", not " +
         message.substr(equals + 3);
}

}  // namespace

std::string ParseFailureMessage(const CLI::App* app, const CLI::Error& error) {
  // The subcommands chosen so far, outermost first: the one the error is about is the last.
  std::string command_name;
  const CLI::App* command = app;
  while (!command->get_subcommands().empty()) {
    command = command->get_subcommands().front();
    command_name += (command_name.empty() ? "" : " ") + command->get_name();
  }
  const std::string help =
      command_name.empty() ? "h5feed --help" : "h5feed " + command_name + " --help";
  // One line: a script (bench sweep's, of its runs) takes the last line for the reason.
  return ErrorLine(command_name, Reworded(command, error)) + " (run '" + help +
         "' for the options)\n";
}

}  // namespace h5feed::cli
