#pragma once
// What `h5feed bench sweep` runs: the grid of its options, parsed and checked before anything
// is done, and the order of the runs. Runs are grouped by file variant (chunk size x
// compression), so each variant is rechunked once and only one exists on disk at a time.
//
// A file of images at their own size (format version 2) has no images per chunk: its variants
// are encodings x chunk bytes (--encodings, --chunk-bytes), each compressed as `h5feed convert`
// compresses that encoding by default (JPEG: none; raw and smart: zstd:3), except the variant
// that is how the input is stored, which keeps the input's compression (it is the input).
//
// Two runs are added to the grid when absent, because the recommendation is stated against
// them: the `random` sampler (the baseline of shuffle quality and of speed), and h5feed's
// defaults (the default chunk size for the image shape, zstd:3, a 512 MiB cache, chunks:8).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "h5feed/compression.h"
#include "h5feed/sampler_options.h"
#include "h5feed/writer.h"

namespace h5feed::bench {

struct SweepGrid {
  std::vector<int64_t> chunks;  // images per chunk
  std::vector<Compression> compressions;
  std::vector<int64_t> cache_mb;
  std::vector<SamplerOptions> samplers;
  // Own-size inputs (own_size set): the variants are encodings x chunk bytes, and `chunks` and
  // `compressions` are unused.
  bool own_size = false;
  std::vector<StoredEncoding> encodings;
  std::vector<int64_t> chunk_bytes;  // C, bytes of a chunk before compression
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

struct FileVariant {
  FileVariant() = default;
  // A variant of a file of one image size.
  FileVariant(int64_t chunks, Compression stored) : chunk_samples(chunks), compression(stored) {}

  int64_t chunk_samples = 0;  // version 1 files; 0 for own-size ones
  Compression compression;
  // Own-size files (own_size set): each image stored as `encoding`, in chunks of chunk_bytes.
  bool own_size = false;
  StoredEncoding encoding;
  int64_t chunk_bytes = 0;
  std::string Name() const;  // "chunk 64, zstd:3"; own size: "jpeg:90, chunks of 4 MiB, none"
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

// h5feed's default settings for a file whose default chunk size is `default_chunk_samples`.
SweepRun DefaultRun(int64_t default_chunk_samples);

// The defaults of an own-size file: `h5feed convert`'s (raw, chunks of 4 MiB, zstd:3), a 512 MiB
// cache, chunks:8.
SweepRun DefaultOwnSizeRun();

// Every combination of the grid (plus `random` when absent), and `defaults` when the grid does
// not hold it. Own-size grids: `input` is how the input is stored; the variant of its encoding
// and chunk bytes takes its compression.
SweepPlan PlanSweep(const SweepGrid& grid, const SweepRun& defaults, const FileVariant& input = {});

// The most disk one rechunked variant of `samples` images of `sample_bytes` can take: chunks
// are padded to full size, zstd can grow incompressible data by ~0.4%, and HDF5 metadata, the
// chunk table and the labels need a little more. The sweep holds one variant at a time.
uint64_t VariantDiskBound(const SweepPlan& plan, int64_t samples, int64_t sample_bytes);

// The same for an own-size file whose images' pixels (the sum of H x W x C) are `pixel_bytes`:
// a variant's stored images are at most their pixels (a JPEG of a photo is smaller), and an
// uncompressed chunk's zero tail can at most double them (packing starts a new chunk only for an
// image that does not fit, so every full chunk is more than half full when images are at most
// half a chunk; the bound allows for larger ones with the chunk size once more).
uint64_t OwnSizeVariantDiskBound(const SweepPlan& plan, int64_t samples, uint64_t pixel_bytes,
                                 int64_t largest_image_bytes);

}  // namespace h5feed::bench
