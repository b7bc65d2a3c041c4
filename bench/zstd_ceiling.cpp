// zstd_ceiling FILE.h5 [--rounds R] [--max-mb M] [--threads N] [--json]
//
// The decompression ceiling of a zstd-compressed h5feed file (docs/bench.md, "Ceilings and the
// fraction reached"): the rate at which one thread turns the file's stored chunks back into pixels.
// The reader cannot deliver pixels faster than threads x this rate, so `h5feed bench --threads T`
// is measured against T x single_mb_per_s (bench/loader_bench.py).
//
// The measurement itself is tools/bench/zstd_rate.h, shared with `h5feed bench`'s ceilings.
// With --threads N > 1 it also runs N threads at once, each decompressing every chunk, and
// reports the aggregate rate: how close to N x single the machine gets right now.
//
// Prints one line, or with --json one object: chunks, compressed_bytes, decompressed_bytes,
// ratio, rounds, single_mb_per_s (decompressed MB/s, MB = 10^6 bytes), single_images_per_s,
// threads, parallel_mb_per_s (with --threads > 1).
// Only whole-chunk zstd files written by h5feed are accepted: for an uncompressed file the
// ceiling is the page-cache read rate (dd), not a decompression rate.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/zstd_rate.h"
#include "whole_number_arg.h"

namespace {

struct Options {
  std::string path;
  int rounds = 3;
  int64_t max_mb = 256;  // compressed MiB held in memory; chunks beyond are sampled evenly
  int threads = 1;
  bool json = false;
};

[[noreturn]] void Usage(const std::string& problem) {
  std::fprintf(stderr,
               "zstd_ceiling: %s\nusage: zstd_ceiling FILE.h5 [--rounds R] [--max-mb M] "
               "[--threads N] [--json]\n",
               problem.c_str());
  std::exit(2);
}

int PositiveArg(int argc, char** argv, int& i) {
  const std::string name = argv[i];
  if (++i >= argc) Usage(name + " needs a value");
  return static_cast<int>(WholeNumberArg(name, argv[i], 1'000'000, Usage));
}

Options ParseArgs(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--rounds") {
      options.rounds = PositiveArg(argc, argv, i);
    } else if (arg == "--max-mb") {
      options.max_mb = PositiveArg(argc, argv, i);
    } else if (arg == "--threads") {
      options.threads = PositiveArg(argc, argv, i);
    } else if (arg == "--json") {
      options.json = true;
    } else if (arg == "-h" || arg == "--help") {
      std::printf(
          "zstd_ceiling FILE.h5 [--rounds R=3] [--max-mb M=256] [--threads N=1] "
          "[--json]\nSingle-thread zstd decompression rate of the file's stored "
          "chunks (bench/README.md).\n");
      std::exit(0);
    } else if (!arg.empty() && arg[0] == '-') {
      Usage("unknown option " + arg);
    } else if (options.path.empty()) {
      options.path = arg;
    } else {
      Usage("one FILE only; got '" + options.path + "' and '" + arg + "'");
    }
  }
  if (options.path.empty()) Usage("no FILE given");
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = ParseArgs(argc, argv);
  try {
    const h5feed::bench::StoredZstdChunks stored = h5feed::bench::ReadStoredZstdChunks(
        options.path, static_cast<uint64_t>(options.max_mb) << 20);
    const h5feed::bench::ZstdRate rate =
        h5feed::bench::MeasureZstdRate(stored, options.rounds, options.threads);
    const double decompressed = stored.decompressed_bytes();
    if (options.json) {
      nlohmann::ordered_json j;
      j["file"] = options.path;
      j["chunks"] = stored.frames.size();
      j["compressed_bytes"] = stored.compressed_bytes;
      j["decompressed_bytes"] = decompressed;
      j["ratio"] = rate.ratio;
      j["rounds"] = options.rounds;
      j["single_mb_per_s"] = rate.single_mb_per_s;
      j["single_images_per_s"] = rate.single_images_per_s;
      j["threads"] = options.threads;
      if (options.threads > 1) j["parallel_mb_per_s"] = rate.parallel_mb_per_s;
      std::printf("%s\n", j.dump().c_str());
    } else {
      std::printf(
          "%zu zstd chunks, %.1f MB -> %.1f MB (%.2fx): %.1f MB/s decompressed on one "
          "thread (%.0f images/s), best of %d",
          stored.frames.size(), stored.compressed_bytes / 1e6, decompressed / 1e6, rate.ratio,
          rate.single_mb_per_s, rate.single_images_per_s, options.rounds);
      if (options.threads > 1) {
        std::printf("; %d threads: %.1f MB/s", options.threads, rate.parallel_mb_per_s);
      }
      std::printf("\n");
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zstd_ceiling: error: %s\n", e.what());
    return 1;
  }
}
