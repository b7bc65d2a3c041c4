#pragma once
// What `convert imagefolder|cifar|npy` and `rechunk` share: their common options, and running
// a conversion for a person at a terminal (progress bar, warnings, Ctrl-C, summary, exit code).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

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

// Which images the options of images at their own size (--max-side, --encoding,
// --smart-threshold) shape: those of an image folder converted without --size, or a rechunked
// file's encoded images (an array of pixels is rewritten as it is).
enum class OwnSizeScope { kWithoutSize, kEncodedImages };

// The options of images at their own size, as AddOwnSizeFlags added them (null for a command
// without them: `convert cifar`, `convert npy`), so that CheckLayoutFlags can tell which were
// given.
struct OwnSizeFlags {
  OwnSizeScope scope = OwnSizeScope::kWithoutSize;
  CLI::Option* max_side = nullptr;
  CLI::Option* encoding = nullptr;
  CLI::Option* smart_threshold = nullptr;
  CLI::Option* resize = nullptr;  // --resize, of the commands that take --size
};

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
  int max_side = converters::kDefaultMaxSide;
  int64_t max_pixels = converters::kDefaultMaxPixels;
  OwnSizeFlags own_size_flags;
  bool one_size = false;  // `convert imagefolder --size`: every image stored at one size
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

// Adds --max-pixels, --max-side, --encoding, --smart-threshold and --chunk-bytes, and records
// the options in flags.own_size_flags. The help of --max-side and --encoding begins with the
// images `scope` names ("Without --size", "Encoded images only").
void AddOwnSizeFlags(CLI::App& command, ConversionFlags& flags, OwnSizeScope scope);

// The one check of the options that apply to one layout only: --max-side and --encoding shape
// images stored each at its own size, --smart-threshold goes with --encoding smart, and --chunk
// counts images of one size per chunk (images at their own size are packed into chunks of
// --chunk-bytes). With `source` null (before it is opened), the options against each other:
// --size with --max-side or another --encoding than raw; with the source opened (`input`, as
// messages name it), the options against the images it stores. Reports (as `command_name`)
// and returns the exit code: kExitUsage, or kExitFailed for --max-side given to an array of
// pixels; kExitOk when the options fit.
int CheckLayoutFlags(const std::string& command_name, const std::string& input,
                     const ConversionFlags& flags, const converters::SampleSource* source);

// ConvertOptions::option_names (and MergeOptions', and the sources' options') for the command
// line: the flag that sets each field ("chunk_bytes" is --chunk-bytes, "overwrite" --force).
OptionNames ConversionFlagNames();

// Checks the output against `inputs` (every file and folder the source reads: OutputProblem),
// opens the source (errors reported as such), checks the options against it
// (CheckLayoutFlags), converts it to flags.output and reports. `input` is the one messages name.
// `open_source` gets the memory budget of --memory-limit, for a source that decodes within it
// (ImageFolderOptions::memory). Returns the exit code (exit_codes.h).
int RunConversion(
    const std::string& command_name, const std::string& input,
    const std::vector<std::string>& inputs,
    const std::function<std::unique_ptr<converters::SampleSource>(converters::MemoryBudget&)>&
        open_source,
    const ConversionFlags& flags, bool shuffle_by_default);

}  // namespace h5feed::cli
