#pragma once
// The machine's ceilings for reading one file, measured in the same run as the benchmark they
// judge (bench/README.md, "Why ratios in one run": never absolute times across runs):
//
//   page cache  the rate one thread reads the file's bytes from the page cache (pread of
//               16 MiB blocks, the file's first max_read_bytes, read once to warm, then timed,
//               best of two). In pixel terms it is this x the compression ratio, since every
//               stored byte must be read.
//   zstd        (zstd-compressed h5feed files) one thread's decompression rate of the file's
//               own chunks (zstd_rate.h), x threads.
//   memcpy      one thread copying 64 MiB buffers: the rate of the gather copy from cached
//               chunks into batches; reported, not part of the binding ceiling (with a warm
//               cache a chunk-aware sampler copies each byte once from the cache, and threads
//               copy in parallel).
//
//   jpeg        (files storing images as JPEG) one thread's TurboJPEG whole-decode rate of the
//               file's own JPEGs (jpeg_rate.h), x threads, over the share of rows stored so:
//               in images/s, as decoding, not reading, binds such a file.
//
// The binding ceiling is the lower of page cache x ratio and zstd x threads: the pixel rate no
// reader on this machine can beat for this file, whatever its cache does; for a file of JPEGs,
// the decode ceiling, in images/s.

#include <cstdint>
#include <string>

namespace h5feed::bench {

struct CeilingOptions {
  int threads = 1;                                // the reader's threads (zstd ceiling x this)
  uint64_t max_read_bytes = uint64_t{512} << 20;  // of the file read for the page-cache rate
  uint64_t max_zstd_bytes = uint64_t{128} << 20;  // compressed bytes decompressed per round
  int64_t max_jpegs = 256;                        // JPEGs decoded per round
  int rounds = 2;
  // The image dataset of a foreign file that holds several (LoaderOptions::images_dataset);
  // "" takes the index's default.
  std::string images_dataset;
};

struct Ceilings {
  double page_cache_mb_per_s = 0;  // stored bytes, MB = 10^6 bytes
  double compression_ratio = 1;    // pixel bytes / stored chunk bytes
  double zstd_mb_per_s = 0;        // one thread, decompressed; 0 when the file is not zstd
  double memcpy_mb_per_s = 0;
  double jpeg_images_per_s = 0;  // one thread; 0 when the file holds no JPEG
  double jpeg_share = 0;         // of the rows, stored as JPEG
  int threads = 1;

  bool compressed() const { return zstd_mb_per_s > 0; }
  bool decodes_jpeg() const { return jpeg_images_per_s > 0; }
  // The images/s decoding allows: threads x the one-thread rate, over the JPEG share (raw rows
  // cost nothing beside them); 0 for a file without JPEGs.
  double JpegImagesPerSecond() const {
    return decodes_jpeg() ? jpeg_images_per_s * threads / jpeg_share : 0;
  }
  // The lower of page cache x ratio and (compressed files) zstd x threads, in MB/s of pixels.
  double PixelMbPerSecond() const;
  // "page cache" or "zstd x N": which one binds.
  std::string Binding() const;
};

// Throws h5feed::Error (kIo, kNotFound, ...) when the file cannot be read.
Ceilings MeasureCeilings(const std::string& path, const CeilingOptions& options);

// Pixel bytes (each image's own H x W x C) / stored bytes of the file's chunks (1 for foreign
// files without a chunk table).
double CompressionRatio(const std::string& path, const std::string& images_dataset = "");

// `achieved` / `ceiling`, 0 when the ceiling is 0.
inline double FractionOf(double achieved, double ceiling) {
  return ceiling > 0 ? achieved / ceiling : 0;
}

}  // namespace h5feed::bench
