#pragma once
// What `h5feed bench sweep` runs: the grid of its options, parsed and checked before anything
// is done, and the order of the runs. Runs are grouped by file variant, so each variant is
// rechunked once and only one exists on disk at a time. Which variants the grid makes of the
// input, and h5feed's defaults for it, depend on how the input stores its images: file_kind.h
// says.
//
// Two runs are added to the grid when absent, because the recommendation is stated against
// them: the `random` sampler (the baseline of shuffle quality and of speed), and h5feed's
// defaults (for a file of one image size: the default chunk size for the image shape, zstd:3,
// a 512 MiB cache, chunks:8).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "h5feed/compression.h"
#include "h5feed/sampler_options.h"
#include "h5feed/writer.h"

namespace h5feed::bench {

struct SweepGrid {
  // The variants of a file of one image size: images per chunk x compressions.
  std::vector<int64_t> chunks;
  std::vector<Compression> compressions;
  // The variants of a file of images at their own size: encodings x C, bytes of a chunk
  // before compression (empty: FileKind's defaults, from the input).
  std::vector<StoredEncoding> encodings;
  std::vector<int64_t> chunk_bytes;
  // The runs of every variant: cache sizes x samplers.
  std::vector<int64_t> cache_mb;
  std::vector<SamplerOptions> samplers;
};

// "16,64,256" -> {16, 64, 256}: whole numbers from `min` up, duplicates dropped, order kept.
// Throws Error(kInvalidArgument) naming `option` and the bad item.
std::vector<int64_t> ParseNumberList(std::string_view text, std::string_view option, int64_t min);

// Parses the four lists (the values of --chunks, --compression, --cache-mb, --sampler).
// Throws Error(kInvalidArgument) naming the option and the item at fault.
SweepGrid ParseGrid(std::string_view chunks, std::string_view compressions,
                    std::string_view cache_mb, std::string_view samplers);

// "raw,jpeg:90,smart:75" (StoredEncoding::Parse's forms) -> the encodings, duplicates dropped.
// Throws Error(kInvalidArgument) naming --encodings and the bad item.
std::vector<StoredEncoding> ParseEncodings(std::string_view text);

// "1M,4M" (ParseMemorySize's forms: K, M, G powers of 1024) -> bytes, duplicates dropped.
// Throws Error(kInvalidArgument) naming --chunk-bytes and the bad item.
std::vector<int64_t> ParseChunkBytes(std::string_view text);

// How one copy of the input stores its images: how its chunks are packed (K images each, or
// whole images up to C bytes: one of chunk_samples and chunk_bytes is set), how each image is
// encoded, and how chunks are compressed. These are ConvertOptions' fields of the same names.
struct FileVariant {
  FileVariant() = default;
  // Chunks of K images of one size (format version 1), stored raw.
  FileVariant(int64_t chunks, Compression stored) : chunk_samples(chunks), compression(stored) {}
  // Chunks of C bytes of whole images, each at its own size and stored as `encoding` (format
  // version 2).
  FileVariant(StoredEncoding each, int64_t bytes, Compression stored)
      : compression(stored), encoding(each), chunk_bytes(bytes) {}

  int64_t chunk_samples = 0;  // K
  Compression compression;
  StoredEncoding encoding;  // raw, for chunks of K images
  int64_t chunk_bytes = 0;  // C
  // As SweepRow::FileName says it: "chunk 64, zstd:3", or "jpeg:90, chunks of 4 MiB, none".
  std::string Name() const;
  friend bool operator==(const FileVariant&, const FileVariant&) = default;
};

struct SweepRun {
  FileVariant file;
  int64_t cache_mb = 0;
  SamplerOptions sampler;
  bool in_grid = true;      // false: added as h5feed's defaults
  bool is_default = false;  // the defaults (in the grid or added)
};

struct SweepPlan {
  std::vector<FileVariant> files;  // in the order they are made
  std::vector<SweepRun> runs;      // grouped by file, in `files` order
};

// h5feed's default settings (zstd:3, a 512 MiB cache, chunks:8) for a file whose default chunk
// size is `default_chunk_samples`; FileKind::Defaults puts the file variant right for a file of
// images at their own size.
SweepRun DefaultRun(int64_t default_chunk_samples);

// Every combination of `files` x the grid's cache sizes x its samplers (plus `random` when
// absent), and `defaults` when the grid does not hold it.
SweepPlan PlanSweep(const std::vector<FileVariant>& files, const SweepGrid& grid,
                    const SweepRun& defaults);

}  // namespace h5feed::bench
