#pragma once
// The zstd decompression rate of a file's own chunks: the ceiling a compressed h5feed file is
// read against (docs/bench.md, "Ceilings and the fraction reached"). The reader cannot deliver
// pixels faster than threads x the single-thread rate. Used by `h5feed bench` (ceilings.h) and by
// bench/zstd_ceiling.
//
// The stored chunks are read into memory first (pread at the addresses of the file's chunk
// table, so no disk or HDF5 time is counted), then each round decompresses every one of them,
// in file order, into one reused chunk buffer with the same call the reader makes
// (codec::ZstdDecompress, a reused per-thread context). The best of the rounds is kept: the
// machine is shared, and the ceiling is what it can do, not what it did while busy.

#include <cstdint>
#include <string>
#include <vector>

namespace h5feed::bench {

struct StoredZstdChunks {
  std::vector<std::vector<uint8_t>> frames;
  uint64_t compressed_bytes = 0;
  int64_t chunk_bytes = 0;  // decompressed size of every chunk (the last one is padded)
  int64_t chunk_samples = 0;
  double decompressed_bytes() const { return double(chunk_bytes) * double(frames.size()); }
};

// True when `path` is an h5feed file whose chunks are zstd frames (the only filter). Throws
// what opening the file throws (h5feed::Error).
bool IsZstdH5feedFile(const std::string& path, const std::string& images_dataset = "");

// Every chunk's stored bytes when they fit in max_bytes, else an evenly spaced subset that does:
// decompression speed depends on the data, so the sample spans the whole file. Throws
// Error(kUnsupported) for a file that is not a zstd-compressed h5feed file (an uncompressed
// file's ceiling is its page-cache read rate).
StoredZstdChunks ReadStoredZstdChunks(const std::string& path, uint64_t max_bytes,
                                      const std::string& images_dataset = "");

struct ZstdRate {
  double single_mb_per_s = 0;  // decompressed MB/s of one thread (MB = 10^6 bytes)
  double single_images_per_s = 0;
  double parallel_mb_per_s = 0;  // all `threads` at once, aggregate (0 when threads == 1)
  double ratio = 0;              // decompressed / compressed bytes
};

// Best of `rounds` single-thread rounds (after one warm-up), and with threads > 1 the best of
// `rounds` rounds of `threads` threads each decompressing every frame.
ZstdRate MeasureZstdRate(const StoredZstdChunks& stored, int rounds, int threads);

}  // namespace h5feed::bench
