// zstd_ceiling FILE.h5 [--rounds R] [--max-mb M] [--threads N] [--json]
//
// The decompression ceiling of a zstd-compressed h5feed file (design.md, "what fast means"):
// the rate at which one thread turns the file's stored chunks back into pixels. The reader
// cannot deliver pixels faster than threads x this rate, so `h5feed bench --threads T` is
// measured against T x single_mb_per_s (bench/loader_bench.py).
//
// The stored chunks are read into memory first (pread at the addresses of the file's chunk
// table, so no disk or HDF5 time is counted), then each round decompresses every one of them,
// in file order, into one reused chunk buffer with the same call the reader makes
// (codec::ZstdDecompress, a reused per-thread context). The best of R rounds is kept: the
// machine is shared, and the ceiling is what it can do, not what it did while busy.
// With --threads N > 1 it also runs N threads at once, each decompressing every chunk, and
// reports the aggregate rate: how close to N x single the machine gets right now.
//
// Prints one line, or with --json one object: chunks, compressed_bytes, decompressed_bytes,
// ratio, rounds, single_mb_per_s (decompressed MB/s, MB = 10^6 bytes), single_images_per_s,
// threads, parallel_mb_per_s (with --threads > 1).
// Only whole-chunk zstd files written by h5feed are accepted: for an uncompressed file the
// ceiling is the page-cache read rate (dd), not a decompression rate.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "codec/zstd_codec.h"
#include "h5feed/error.h"
#include "index/dataset_index.h"
#include "io/random_access_file.h"

namespace {

using h5feed::Error;
using h5feed::ErrorCode;

struct Options {
  std::string path;
  int rounds = 3;
  int64_t max_mb = 256;  // compressed MiB held in memory; chunks beyond are sampled evenly
  int threads = 1;
  bool json = false;
};

struct StoredChunks {
  std::vector<std::vector<uint8_t>> frames;
  uint64_t compressed_bytes = 0;
  int64_t chunk_bytes = 0;  // decompressed size of every chunk (the last one is padded)
  int64_t chunk_samples = 0;
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
  char* end = nullptr;
  const long value = std::strtol(argv[i], &end, 10);
  if (*end != '\0' || value < 1 || value > 1'000'000) {
    Usage(name + " must be a whole number from 1 to 1000000, got '" + argv[i] + "'");
  }
  return static_cast<int>(value);
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
      std::printf("zstd_ceiling FILE.h5 [--rounds R=3] [--max-mb M=256] [--threads N=1] "
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

// Every chunk's stored bytes when they fit in max_mb, else an evenly spaced subset that does:
// decompression speed depends on the data, so the sample spans the whole file.
StoredChunks ReadStoredChunks(const Options& options) {
  const h5feed::index::DatasetIndex index =
      h5feed::index::OpenDatasetIndex(options.path, h5feed::index::IndexOptions{});
  const bool zstd_only = index.filters.size() == 1 &&
                         index.filters[0].kind == h5feed::index::FilterKind::kZstd;
  if (index.read_path != h5feed::index::ReadPath::kStoredTable || !zstd_only) {
    throw Error(ErrorCode::kUnsupported,
                options.path + " is not a zstd-compressed h5feed file (read path " +
                    h5feed::index::ToString(index.read_path) + ", " +
                    std::to_string(index.filters.size()) + " filters); an uncompressed file's "
                    "ceiling is its page-cache read rate (dd if=FILE of=/dev/null bs=16M)");
  }
  const int64_t count = index.chunk_count();
  uint64_t total = 0;
  for (const auto& chunk : index.chunks) total += chunk.stored_bytes;
  const uint64_t budget = static_cast<uint64_t>(options.max_mb) << 20;
  const int64_t keep =
      total <= budget ? count
                      : std::max<int64_t>(1, static_cast<int64_t>(count * double(budget) / total));

  StoredChunks stored;
  stored.chunk_samples = index.chunk_samples;
  stored.chunk_bytes = index.chunk_samples * index.sample_bytes();
  const auto file = h5feed::io::OpenPosixFile(options.path);
  for (int64_t k = 0; k < keep; ++k) {
    const int64_t c = keep == count ? k : k * count / keep;
    const h5feed::index::ChunkLocation& location = index.chunks[static_cast<size_t>(c)];
    if (location.filter_mask & 1u) continue;  // stored raw: nothing to decompress
    std::vector<uint8_t> frame(location.stored_bytes);
    file->ReadAt(location.address, frame);
    stored.compressed_bytes += frame.size();
    stored.frames.push_back(std::move(frame));
  }
  if (stored.frames.empty()) {
    throw Error(ErrorCode::kUnsupported, options.path + " has no zstd-compressed chunk");
  }
  return stored;
}

// Seconds to decompress every frame once, into one reused buffer.
double DecompressAll(const StoredChunks& stored, std::vector<uint8_t>& buffer) {
  const auto start = std::chrono::steady_clock::now();
  for (const auto& frame : stored.frames) h5feed::codec::ZstdDecompress(frame, buffer);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Seconds for `threads` threads each decompressing every frame once, started together.
double DecompressAllParallel(const StoredChunks& stored, int threads) {
  std::vector<std::thread> workers;
  std::vector<std::exception_ptr> errors(static_cast<size_t>(threads));
  const auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      try {
        std::vector<uint8_t> buffer(static_cast<size_t>(stored.chunk_bytes));
        DecompressAll(stored, buffer);
      } catch (...) {
        errors[static_cast<size_t>(t)] = std::current_exception();
      }
    });
  }
  for (auto& worker : workers) worker.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = ParseArgs(argc, argv);
  try {
    const StoredChunks stored = ReadStoredChunks(options);
    std::vector<uint8_t> buffer(static_cast<size_t>(stored.chunk_bytes));
    const double decompressed = double(stored.chunk_bytes) * double(stored.frames.size());
    DecompressAll(stored, buffer);  // warm-up: contexts, page faults of the buffer
    double best = 1e300;
    for (int r = 0; r < options.rounds; ++r) best = std::min(best, DecompressAll(stored, buffer));
    const double single = decompressed / best / 1e6;
    const double images = double(stored.chunk_samples) * double(stored.frames.size()) / best;
    double parallel = 0;
    if (options.threads > 1) {
      double best_parallel = 1e300;
      for (int r = 0; r < options.rounds; ++r) {
        best_parallel = std::min(best_parallel, DecompressAllParallel(stored, options.threads));
      }
      parallel = decompressed * options.threads / best_parallel / 1e6;
    }
    const double ratio = decompressed / double(stored.compressed_bytes);
    if (options.json) {
      nlohmann::ordered_json j;
      j["file"] = options.path;
      j["chunks"] = stored.frames.size();
      j["compressed_bytes"] = stored.compressed_bytes;
      j["decompressed_bytes"] = decompressed;
      j["ratio"] = ratio;
      j["rounds"] = options.rounds;
      j["single_mb_per_s"] = single;
      j["single_images_per_s"] = images;
      j["threads"] = options.threads;
      if (options.threads > 1) j["parallel_mb_per_s"] = parallel;
      std::printf("%s\n", j.dump().c_str());
    } else {
      std::printf("%zu zstd chunks, %.1f MB -> %.1f MB (%.2fx): %.1f MB/s decompressed on one "
                  "thread (%.0f images/s), best of %d",
                  stored.frames.size(), stored.compressed_bytes / 1e6, decompressed / 1e6, ratio,
                  single, images, options.rounds);
      if (options.threads > 1) std::printf("; %d threads: %.1f MB/s", options.threads, parallel);
      std::printf("\n");
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zstd_ceiling: error: %s\n", e.what());
    return 1;
  }
}
