#pragma once
// The subcommands of the h5feed command. Each Add*Command adds its subcommand (with its
// options and --help text) to `app`, and when that subcommand is chosen on the command line
// sets `run` to the function that carries it out and returns the process exit code
// (exit_codes.h).

#include <functional>

namespace CLI {
class App;
}

namespace h5feed::cli {

using Runner = std::function<int()>;

void AddConvertCommand(CLI::App& app, Runner& run);  // convert imagefolder | cifar | npy | ...
void AddRechunkCommand(CLI::App& app, Runner& run);
void AddMergeCommand(CLI::App& app, Runner& run);  // merge PART... OUT
void AddInspectCommand(CLI::App& app, Runner& run);
void AddVerifyCommand(CLI::App& app, Runner& run);
void AddBenchCommand(CLI::App& app, Runner& run);

}  // namespace h5feed::cli
