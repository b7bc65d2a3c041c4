#pragma once
// Runs a program and collects its output: how the sweep runs `h5feed bench --json` once per
// combination (each run then has its own peak memory and cannot take the sweep down), gnuplot,
// and the Python reference loaders.
//
// The child stays in the caller's process group, so Ctrl-C at the terminal reaches it too:
// it stops the child's work, and the caller sees exit code 130.

#include <string>
#include <vector>

namespace h5feed::bench {

struct ProcessResult {
  int exit_code = 0;  // the exit status, or 128 + the signal that ended it
  std::string out;    // all of stdout
  std::string err;    // all of stderr
};

// Runs argv[0] (looked up on PATH when it has no slash) with argv, the environment plus
// `extra_env` ("NAME=value" entries, replacing those names). Throws Error(kNotFound) when the
// program cannot be started, naming it.
ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const std::vector<std::string>& extra_env = {});

// The absolute path of `program` found on PATH (or itself when it has a slash and exists), or
// empty.
std::string FindProgram(const std::string& program);

// The last line of `text` that is not empty.
std::string LastLine(const std::string& text);

}  // namespace h5feed::bench
