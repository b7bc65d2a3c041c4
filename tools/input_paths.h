#pragma once
// Inputs named on the command line that must exist: one that does not is a wrong command line
// (exit 2, nothing done; docs/command.md, "Exit codes and messages"), in every command alike,
// said as "PATH does not exist". A URL (http://, https://, s3://) is found or not only when it
// is read.

#include <CLI/CLI.hpp>
#include <string>

namespace h5feed::cli {

enum class InputKind {
  kFile,       // a local file
  kFileOrUrl,  // a local file, or a URL the remote reader opens
  kFolder,     // a local folder
};

// "" when `path` is an input of `kind` that exists; else what is wrong with it: "PATH does not
// exist", "PATH is a folder, not a file", "PATH is not a folder".
std::string InputProblem(const std::string& path, InputKind kind);

// A check of an option's value (each value of a repeated one) by InputProblem.
CLI::Validator ExistingInput(InputKind kind);

}  // namespace h5feed::cli
