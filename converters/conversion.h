#pragma once
// Converts any SampleSource into an h5feed file: the engine behind `h5feed convert` and
// `h5feed rechunk`.
//
// Samples are read in the stored order (a seeded shuffle by default) by a TBB pipeline:
//   plan groups of K samples (serial) -> read/decode/resize each group (parallel)
//   -> pack successful samples into chunks of K (serial, in order) -> compress and checksum
//   (parallel) -> append to the file (serial, in order).
// At most `2 x threads + 2` groups are in flight, each holding a few chunk-sized buffers, so
// memory is bounded by the chunk size and the thread count, whatever the dataset size.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "h5feed/compression.h"
#include "h5feed/image_shape.h"
#include "h5feed/writer.h"
#include "sample_source.h"

namespace h5feed {

struct ConvertProgress {
  int64_t done = 0;     // samples read so far, skipped ones included
  int64_t total = 0;    // samples offered by the source
  int64_t skipped = 0;
};

struct ConvertOptions {
  int64_t chunk_images = 0;  // K; 0 = about 4 MiB per chunk
  Compression compression;   // default zstd:3
  // Store in a seeded random order (docs/format.md, "Stored order"): a chunk then holds many
  // classes, which chunk-aware samplers need to mix them (docs/reader.md, "Label mixing").
  bool shuffle = true;
  uint64_t seed = 0;         // the order's seed when shuffle is on
  int threads = 0;           // 0 = all cores
  bool overwrite = false;    // replace an existing output
  bool strict = false;       // a broken sample is an error instead of a skip
  // Called on the writing thread after each chunk; keep it cheap.
  std::function<void(const ConvertProgress&)> on_progress;
  // Called on the packing thread once per skipped sample, in stored order.
  std::function<void(const SkippedSource&)> on_skip;
  // Set (for example by a SIGINT handler) to stop: Convert then removes its temporary file
  // and throws Error(kCancelled).
  const std::atomic<bool>* cancel = nullptr;
};

struct ConvertReport {
  std::string path;
  ImageShape shape;
  int64_t images = 0;  // written
  int64_t chunks = 0;
  int64_t chunk_images = 0;
  std::vector<SkippedSource> skipped;
  Compression compression;
  bool shuffled = false;
  uint64_t seed = 0;
  uint64_t raw_bytes = 0;     // images x image bytes
  uint64_t stored_bytes = 0;  // bytes of all stored chunks
  double seconds = 0;
};

// Throws Error: whatever the source or the writer throws (the temporary file is removed),
// kCorrupt for a broken sample under `strict`, kInvalidArgument when no sample could be read,
// kCancelled when `cancel` was set.
ConvertReport Convert(const SampleSource& source, const std::string& path,
                      const ConvertOptions& options);

}  // namespace h5feed
