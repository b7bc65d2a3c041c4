#pragma once
// What `convert imagefolder|cifar|npy` and `rechunk` share: their common options, and running
// a conversion for a person at a terminal (progress bar, warnings, Ctrl-C, summary, exit code).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "memory_budget.h"
#include "sample_source.h"

namespace CLI {
class App;
}

namespace h5feed::cli {

struct ConversionFlags {
  std::string output;
  int64_t chunk = 0;
  std::string compression = "zstd:3";
  uint64_t seed = 0;
  bool seed_given = false;
  bool no_shuffle = false;
  int threads = 0;
  bool force = false;
  bool quiet = false;
  bool strict = false;
  std::string memory_limit = "2G";  // kDefaultMemoryLimit, as ParseMemorySize reads it
};

// Adds --chunk, --compression, --seed, --no-shuffle, --threads, --memory-limit, --force,
// --quiet, --strict.
// `shuffle_by_default`: whether the stored order is shuffled when neither --seed nor
// --no-shuffle is given.
void AddConversionFlags(CLI::App& command, ConversionFlags& flags, bool shuffle_by_default);

// Opens the source (errors reported as such), converts it to flags.output and reports.
// `open_source` gets the memory budget of --memory-limit, for a source that decodes within it
// (ImageFolderOptions::memory). Returns the exit code (exit_codes.h).
int RunConversion(const std::string& command_name, const std::string& input,
                  const std::function<std::unique_ptr<SampleSource>(MemoryBudget&)>& open_source,
                  const ConversionFlags& flags, bool shuffle_by_default);

// Prints "h5feed COMMAND: error: MESSAGE" on stderr and returns the exit code for it.
int ReportError(const std::string& command_name, const std::exception& error);

}  // namespace h5feed::cli
