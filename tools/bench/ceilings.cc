// The machine's ceilings for a file (ceilings.h).

#include "ceilings.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include "index/dataset_index.h"
#include "io/random_access_file.h"
#include "jpeg_rate.h"
#include "zstd_rate.h"

namespace h5feed::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The first `limit` bytes of the file, read in 16 MiB blocks: the first pass brings them into
// the page cache (or finds them there), the timed passes then measure the cache, not the disk.
double PageCacheMbPerSecond(const std::string& path, uint64_t limit, int rounds) {
  const auto file = io::OpenPosixFile(path);
  const uint64_t bytes = std::min(limit, file->size());
  if (bytes == 0) return 0;
  std::vector<uint8_t> block(size_t{16} << 20);
  auto read_all = [&] {
    for (uint64_t offset = 0; offset < bytes; offset += block.size()) {
      const uint64_t n = std::min<uint64_t>(block.size(), bytes - offset);
      file->ReadAt(offset, std::span<uint8_t>(block.data(), n));
    }
  };
  read_all();
  double best = 1e300;
  for (int r = 0; r < rounds; ++r) {
    const auto start = Clock::now();
    read_all();
    best = std::min(best, Seconds(start));
  }
  return static_cast<double>(bytes) / 1e6 / best;
}

// Large enough (64 MiB) to overflow any last-level cache, so it measures memory, not cache.
double MemcpyMbPerSecond(int rounds) {
  const size_t bytes = size_t{64} << 20;
  std::vector<uint8_t> from(bytes, 1), to(bytes, 0);
  std::memcpy(to.data(), from.data(), bytes);  // fault the pages in first
  double best = 1e300;
  for (int r = 0; r < rounds + 1; ++r) {
    const auto start = Clock::now();
    std::memcpy(to.data(), from.data(), bytes);
    best = std::min(best, Seconds(start));
    from[static_cast<size_t>(r)] = to[bytes - 1 - static_cast<size_t>(r)];  // keep both alive
  }
  return static_cast<double>(bytes) / 1e6 / best;
}

}  // namespace

double Ceilings::PixelMbPerSecond() const {
  const double read = page_cache_mb_per_s * compression_ratio;
  return compressed() ? std::min(read, zstd_mb_per_s * threads) : read;
}

std::string Ceilings::Binding() const {
  if (compressed() && zstd_mb_per_s * threads < page_cache_mb_per_s * compression_ratio) {
    return "zstd x " + std::to_string(threads);
  }
  return "page cache";
}

double CompressionRatio(const std::string& path, const std::string& images_dataset) {
  index::IndexOptions options;
  options.images = images_dataset;
  const index::DatasetIndex index = index::OpenDatasetIndex(path, options);
  uint64_t stored = 0;
  for (const auto& chunk : index.chunks) stored += chunk.stored_bytes;
  // Each image's own pixels, not N x the largest image's (sample_bytes()), which for images at
  // their own size overstated the ratio and the page-cache ceiling with it.
  const auto pixels = static_cast<double>(index.pixel_bytes());
  return stored > 0 ? pixels / static_cast<double>(stored) : 1.0;
}

Ceilings MeasureCeilings(const std::string& path, const CeilingOptions& options) {
  Ceilings ceilings;
  ceilings.threads = std::max(1, options.threads);
  ceilings.compression_ratio = CompressionRatio(path, options.images_dataset);
  ceilings.page_cache_mb_per_s = PageCacheMbPerSecond(path, options.max_read_bytes, options.rounds);
  if (IsZstdH5feedFile(path, options.images_dataset)) {
    const StoredZstdChunks stored =
        ReadStoredZstdChunks(path, options.max_zstd_bytes, options.images_dataset);
    ceilings.zstd_mb_per_s = MeasureZstdRate(stored, options.rounds, 1).single_mb_per_s;
  }
  const JpegRate jpeg =
      MeasureJpegRate(path, options.max_jpegs, options.rounds, options.images_dataset);
  ceilings.jpeg_images_per_s = jpeg.images_per_s;
  ceilings.jpeg_share = jpeg.share;
  ceilings.memcpy_mb_per_s = MemcpyMbPerSecond(options.rounds);
  return ceilings;
}

}  // namespace h5feed::bench
