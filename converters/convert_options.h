#pragma once
// What a conversion (conversion.h) is asked to do, and the progress it reports while it runs.
// Apart from Convert itself, so that the pieces of a conversion (its packers, its ending) and
// the front ends that fill these options need not see the engine's header.

#include <atomic>
#include <cstdint>
#include <functional>

#include "conversion_part.h"
#include "h5feed/compression.h"
#include "h5feed/option_names.h"
#include "h5feed/skipped_source.h"
#include "h5feed/writer.h"

namespace h5feed::converters {

class MemoryBudget;

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
  // The bytes a sample's bytes and text field values take together, as the caller expects them
  // (h5feed.write measures its first samples'): no field spec says, as an array's shape does.
  // With the arrays' rows, they set how many samples a group and a chunk hold
  // (field_value_rows.h), so that the memory budget bounds large values too. 0: none, or small
  // beside the images.
  int64_t value_bytes = 0;
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
  // How errors name the options (option_names.h), by these fields' names ("chunk_images",
  // "chunk_bytes", "smart_threshold", "strict", "overwrite", and "memory" for the memory
  // limit) and by the fields of the source's options ("size", "max_side", "max_pixels",
  // "allow_empty"), so that a front end gives one OptionNames to both: `--chunk-bytes` on the
  // command line, `chunk_bytes` in Python. Empty: the C++ names.
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

}  // namespace h5feed::converters
