#pragma once
// Converts any SampleSource into an h5feed file: the engine behind `h5feed convert` and
// `h5feed rechunk`.
//
// Samples are read in the stored order (a seeded shuffle by default) by a TBB pipeline:
//   plan groups of K samples (serial) -> read/decode/resize each group (parallel)
//   -> pack successful samples into chunks of K (serial, in order) -> compress and checksum
//   (parallel) -> append to the file (serial, in order).
// Memory is bounded by a budget (memory_budget.h), whatever the dataset size, the images'
// dimensions and the thread count: each group in flight holds three chunk-sized buffers, and
// `2 x threads + 2` groups are in flight when at most half the budget holds them, fewer
// otherwise; the rest is what the source decodes in (ImageFolderOptions::memory).

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "h5feed/compression.h"
#include "h5feed/image_shape.h"
#include "h5feed/writer.h"
#include "memory_budget.h"
#include "sample_source.h"

namespace h5feed {

struct ConvertProgress {
  int64_t done = 0;   // samples read so far, skipped ones included
  int64_t total = 0;  // samples offered by the source
  int64_t skipped = 0;
};

struct ConvertOptions {
  int64_t chunk_images = 0;  // K; 0 = about 4 MiB per chunk
  Compression compression;   // default zstd:3
  // Store in a seeded random order (docs/format.md, "Stored order"): a chunk then holds many
  // classes, which chunk-aware samplers need to mix them (docs/reader.md, "Label mixing").
  bool shuffle = true;
  uint64_t seed = 0;       // the order's seed when shuffle is on
  int threads = 0;         // 0 = all cores
  bool overwrite = false;  // replace an existing output
  bool strict = false;     // a broken sample is an error instead of a skip
  // The memory budget for the chunk buffers and, shared with the source, decoding (a source
  // with a budget of its own, SampleSource::memory_budget(), must be given that one). Null: the
  // source's, or a budget of kDefaultMemoryLimit. Must outlive the call.
  MemoryBudget* memory = nullptr;
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
// kCorrupt for a broken sample under `strict`, kInvalidArgument when no sample could be read or
// the memory budget cannot hold one chunk's buffers, kCancelled when `cancel` was set.
ConvertReport Convert(const SampleSource& source, const std::string& path,
                      const ConvertOptions& options);

}  // namespace h5feed
