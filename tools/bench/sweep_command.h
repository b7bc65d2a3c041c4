#pragma once
// `h5feed bench sweep FILE.h5 --out DIR ...`: the subcommand of `h5feed bench` that runs a grid
// of chunk sizes, compressions, cache sizes and samplers (sweep_runner.h does the work).

#include "commands.h"

namespace CLI {
class App;
}

namespace h5feed::cli {

// Adds `sweep` to the `bench` command and returns it (bench skips its own run when it was
// chosen).
CLI::App* AddSweepCommand(CLI::App& bench, Runner& run);

}  // namespace h5feed::cli
