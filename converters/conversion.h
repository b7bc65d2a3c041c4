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
//
// A source of images at their own size (SampleSource::own_size()) is written as a version 2
// "flat" file (docs/format.md, "Images at their own size") by the same pipeline: each sample
// is decoded at its own size and, as the encoding asks, JPEG-encoded (parallel); packing puts
// whole images into chunks of C bytes in stored order, greedily (serial, in order); a group
// holds as many samples as C holds of the largest image, so it completes at most one chunk.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "conversion_part.h"
#include "h5feed/compression.h"
#include "h5feed/encoding_counts.h"
#include "h5feed/image_shape.h"
#include "h5feed/report_value.h"
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
  // K, images per chunk, of a version 1 file; 0 = about chunk_bytes (4 MiB) per chunk. Refused
  // (kInvalidArgument) for an own-size source, whose chunks hold whole images of any size.
  int64_t chunk_images = 0;
  // C: the bytes of a chunk of an own-size source's file before compression, raised to the
  // largest image that may be stored so every image fits; 0 = 4 MiB. A version 1 file without
  // chunk_images takes the K that makes chunks nearest it.
  int64_t chunk_bytes = 0;
  Compression compression;  // default zstd:3
  // Own-size sources only (kInvalidArgument for others unless raw): how each image is stored.
  StoredEncoding encoding;
  // With StoredEncoding::Kind::kSmart: images of more raw bytes (H * W * C) are JPEG.
  int64_t smart_threshold = kDefaultSmartThreshold;
  // Store in a seeded random order (docs/format.md, "Stored order"): a chunk then holds many
  // classes, which chunk-aware samplers need to mix them (docs/reader.md, "Label mixing").
  bool shuffle = true;
  uint64_t seed = 0;  // the order's seed when shuffle is on
  // Convert only this part of the stored order (conversion_part.h), to `path` as given (the
  // caller names the file: PartPath). Chunk sizes are chosen for the whole dataset, so every
  // part's match; the file records the part for `h5feed merge`.
  ConversionPart part;
  int threads = 0;         // 0 = all cores
  bool overwrite = false;  // replace an existing output
  bool strict = false;     // a broken sample is an error instead of a skip
  // How errors name these options (option_names.h): a front end passes its own spelling of
  // "overwrite". Empty: the C++ names.
  OptionNames option_names;
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
  ImageShape shape;    // version 1: the images' shape; own size: the largest that may be stored
  int64_t images = 0;  // written
  int64_t chunks = 0;
  // Version 1: the images of a full chunk, K, or of the one chunk when fewer images than K were
  // written (K is chosen before the broken inputs are skipped); own size: 0.
  int64_t chunk_images = 0;
  // Own size (a version 2 file): the chunk size C, the cap applied, the encoding asked for,
  // its threshold, and the bytes of the stored images (JPEG files or pixels) before
  // compression; chunk fill = payload_bytes / (chunks x chunk_bytes).
  bool own_size = false;
  int64_t chunk_bytes = 0;
  int64_t max_side = 0;
  StoredEncoding encoding;
  int64_t smart_threshold = 0;
  EncodingCounts encodings;  // own size: `images` by how each is stored; version 1: empty
  uint64_t payload_bytes = 0;
  std::vector<SkippedSource> skipped;
  Compression compression;
  bool shuffled = false;
  uint64_t seed = 0;
  uint64_t raw_bytes = 0;     // the stored images' pixels: the sum of H x W x C
  uint64_t stored_bytes = 0;  // bytes of all stored chunks
  double seconds = 0;
};

// Throws Error: whatever the source or the writer throws (the temporary file is removed),
// kCorrupt for a broken sample under `strict`, kInvalidArgument when no sample could be read,
// the memory budget cannot hold one chunk's buffers, an option does not suit the source or
// `part` has no input (more parts than inputs), kCancelled when `cancel` was set.
ConvertReport Convert(const SampleSource& source, const std::string& path,
                      const ConvertOptions& options);

// Every field of `report` as named values, with the figures derived from them (chunk fill, the
// pixels' bytes against the stored bytes, the inputs read and their rate): what `h5feed
// convert --json` and `rechunk --json` write and h5feed.convert_*() and rechunk() return.
// The keys of images at their own size are there only for an own-size report.
ReportValue ConversionValue(const ConvertReport& report);

}  // namespace h5feed
