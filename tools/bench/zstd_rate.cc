// The zstd decompression ceiling (zstd_rate.h).

#include "zstd_rate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <span>
#include <thread>

#include "codec/zstd_codec.h"
#include "h5feed/error.h"
#include "index/dataset_index.h"
#include "io/random_access_file.h"
#include "make_error.h"

namespace h5feed::bench {
namespace {

bool IsZstdIndex(const index::DatasetIndex& index) {
  return index.read_path == index::ReadPath::kStoredTable && index.filters.size() == 1 &&
         index.filters[0].kind == index::FilterKind::kZstd;
}

// Seconds to decompress every frame once, into one reused buffer.
double DecompressAll(const StoredZstdChunks& stored, std::vector<uint8_t>& buffer) {
  const auto start = std::chrono::steady_clock::now();
  for (const auto& frame : stored.frames) codec::ZstdDecompress(frame, buffer);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Seconds for `threads` threads each decompressing every frame once, started together.
double DecompressAllParallel(const StoredZstdChunks& stored, int threads) {
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

bool IsZstdH5feedFile(const std::string& path, const std::string& images_dataset) {
  index::IndexOptions options;
  options.images = images_dataset;
  return IsZstdIndex(index::OpenDatasetIndex(path, options));
}

StoredZstdChunks ReadStoredZstdChunks(const std::string& path, uint64_t max_bytes,
                                      const std::string& images_dataset) {
  index::IndexOptions options;
  options.images = images_dataset;
  const index::DatasetIndex index = index::OpenDatasetIndex(path, options);
  if (!IsZstdIndex(index)) {
    throw MakeError(
        ErrorCode::kUnsupported,
        "{} is not a zstd-compressed h5feed file (read path {}, {} filters); an uncompressed "
        "file's ceiling is its page-cache read rate (dd if=FILE of=/dev/null bs=16M)",
        path, index::ToString(index.read_path), index.filters.size());
  }
  const int64_t count = index.chunk_count();
  uint64_t total = 0;
  for (const auto& chunk : index.chunks) total += chunk.stored_bytes;
  const int64_t keep =
      total <= max_bytes
          ? count
          : std::max<int64_t>(1, static_cast<int64_t>(count * double(max_bytes) / total));

  StoredZstdChunks stored;
  // Own-size files hold a varying number of images per chunk: their mean.
  stored.chunk_samples = std::max<int64_t>(1, std::llround(index.chunk_rows().mean_rows()));
  stored.chunk_bytes = index.chunk_bytes();
  const auto file = io::OpenPosixFile(path);
  for (int64_t k = 0; k < keep; ++k) {
    const int64_t c = keep == count ? k : k * count / keep;
    const index::ChunkLocation& location = index.chunks[static_cast<size_t>(c)];
    if (location.filter_mask & 1u) continue;  // stored raw: nothing to decompress
    std::vector<uint8_t> frame(location.stored_bytes);
    file->ReadAt(location.address, frame);
    stored.compressed_bytes += frame.size();
    stored.frames.push_back(std::move(frame));
  }
  if (stored.frames.empty()) {
    throw MakeError(ErrorCode::kUnsupported, "{} has no zstd-compressed chunk", path);
  }
  return stored;
}

ZstdRate MeasureZstdRate(const StoredZstdChunks& stored, int rounds, int threads) {
  std::vector<uint8_t> buffer(static_cast<size_t>(stored.chunk_bytes));
  const double decompressed = stored.decompressed_bytes();
  DecompressAll(stored, buffer);  // warm-up: contexts, page faults of the buffer
  double best = 1e300;
  for (int r = 0; r < rounds; ++r) best = std::min(best, DecompressAll(stored, buffer));
  ZstdRate rate;
  rate.single_mb_per_s = decompressed / best / 1e6;
  rate.single_images_per_s = double(stored.chunk_samples) * double(stored.frames.size()) / best;
  rate.ratio = decompressed / double(stored.compressed_bytes);
  if (threads > 1) {
    double best_parallel = 1e300;
    for (int r = 0; r < rounds; ++r) {
      best_parallel = std::min(best_parallel, DecompressAllParallel(stored, threads));
    }
    rate.parallel_mb_per_s = decompressed * threads / best_parallel / 1e6;
  }
  return rate;
}

}  // namespace h5feed::bench
