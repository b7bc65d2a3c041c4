#pragma once
// What `convert imagefolder|cifar|npy` and `rechunk` share: their common options, and running
// a conversion for a person at a terminal (progress bar, warnings, Ctrl-C, summary, exit code).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "command_error.h"
#include "h5feed/writer.h"
#include "memory_budget.h"
#include "sample_source.h"
#include "sources/image_file_reader.h"
#include "sources/image_folder_source.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace h5feed::cli {

struct ConversionFlags {
  std::string output;
  int64_t chunk = 0;
  std::string compression;  // empty: zstd:3, or none with --encoding jpeg
  // `convert imagefolder` and `rechunk` only (AddOwnSizeFlags; the others keep these
  // defaults): --encoding, --smart-threshold, --chunk-bytes (empty: 4 MiB), --max-side,
  // --max-pixels.
  std::string encoding = "raw";
  int64_t smart_threshold = kDefaultSmartThreshold;
  std::string chunk_bytes;
  int max_side = kDefaultMaxSide;
  int64_t max_pixels = kDefaultMaxPixels;
  uint64_t seed = 0;
  bool seed_given = false;
  bool no_shuffle = false;
  int threads = 0;
  bool force = false;
  bool quiet = false;
  bool json = false;  // the report as JSON (ConversionValue) instead of the text summary
  bool strict = false;
  std::string memory_limit = "2G";  // kDefaultMemoryLimit, as ParseMemorySize reads it
  std::string part;                 // --part K/N or auto; empty: the whole conversion
};

// Adds --chunk, --compression, --seed, --no-shuffle, --threads, --memory-limit, --force,
// --quiet, --json, --strict, --part.
// `shuffle_by_default`: whether the stored order is shuffled when neither --seed nor
// --no-shuffle is given.
void AddConversionFlags(CLI::App& command, ConversionFlags& flags, bool shuffle_by_default);

// The options of images decoded and stored each at its own size, as `convert imagefolder`
// and `rechunk` (of encoded images) take them.
struct OwnSizeFlags {
  CLI::Option* max_side = nullptr;
  CLI::Option* encoding = nullptr;
  CLI::Option* smart_threshold = nullptr;
};

// Adds --max-pixels, --max-side, --encoding, --smart-threshold and --chunk-bytes. `applies`
// says to which images --max-side and --encoding apply, as the help begins them ("Without
// --size").
OwnSizeFlags AddOwnSizeFlags(CLI::App& command, ConversionFlags& flags, const std::string& applies);

// Reports (as `command_name`) and returns kExitUsage for --smart-threshold without --encoding
// smart; kExitOk otherwise.
int CheckOwnSizeFlags(const std::string& command_name, const OwnSizeFlags& given,
                      const ConversionFlags& flags);

// ConvertOptions::option_names (and MergeOptions') for the command line: "overwrite" is
// --force.
OptionNames WriterFlagNames();

// Opens the source (errors reported as such), converts it to flags.output and reports.
// `open_source` gets the memory budget of --memory-limit, for a source that decodes within it
// (ImageFolderOptions::memory). Returns the exit code (exit_codes.h).
int RunConversion(const std::string& command_name, const std::string& input,
                  const std::function<std::unique_ptr<SampleSource>(MemoryBudget&)>& open_source,
                  const ConversionFlags& flags, bool shuffle_by_default);

}  // namespace h5feed::cli
