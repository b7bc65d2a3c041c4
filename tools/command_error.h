#pragma once
// How every h5feed command reports an error: one line on stderr,
//
//   h5feed COMMAND: error: MESSAGE
//
// whether the command line was wrong (CLI11's parse errors, through main.cc's failure message)
// or the work failed, so that people and scripts find a command's errors by one prefix.

#include <exception>
#include <string>

namespace CLI {
class App;
class Error;
}  // namespace CLI

namespace h5feed::cli {

// "h5feed COMMAND: error: MESSAGE" (no newline). `command_name` is the subcommand path after
// "h5feed": "bench", "bench sweep", "convert"; empty before any (an unknown command):
// "h5feed: error: MESSAGE".
std::string ErrorLine(const std::string& command_name, const std::string& message);

// Prints ErrorLine on stderr and returns kExitFailed.
int ReportError(const std::string& command_name, const std::exception& error);

// ReportError for the work on the command's inputs: returns kExitUsage, as for a local input
// that does not exist (input_paths.h), when `error` is Error::missing_input(): a URL its
// server answers 404 or 410 (found or not only when it is read), or a file removed after the
// command line was checked. Else kExitFailed (a dataset the file lacks included: the file was
// there).
int ReportInputError(const std::string& command_name, const std::exception& error);

// Prints ErrorLine on stderr and returns kExitUsage: for a command line that is wrong in a way
// only the command's own checks see.
int ReportUsageError(const std::string& command_name, const std::string& message);

// CLI11's failure message (App::failure_message) for the command line `app` parsed: ErrorLine
// of the subcommand that was chosen (the deepest), and where to find its options, on one line.
std::string ParseFailureMessage(const CLI::App* app, const CLI::Error& error);

}  // namespace h5feed::cli
