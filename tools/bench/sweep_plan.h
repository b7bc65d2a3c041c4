#pragma once
// What `h5feed bench sweep` runs: the grid of its options, parsed and checked before anything
// is done, and the order of the runs. Runs are grouped by file variant (chunk size x
// compression), so each variant is rechunked once and only one exists on disk at a time.
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

namespace h5feed::bench {

struct SweepGrid {
  std::vector<int64_t> chunks;  // images per chunk
  std::vector<Compression> compressions;
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

struct FileVariant {
  int64_t chunk_samples = 0;
  Compression compression;
  std::string Name() const;  // "chunk 64, zstd:3"
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

// Every combination of the grid (plus `random` when absent), and `defaults` when the grid does
// not hold it.
SweepPlan PlanSweep(const SweepGrid& grid, const SweepRun& defaults);

// The most disk one rechunked variant of `samples` images of `sample_bytes` can take: chunks
// are padded to full size, zstd can grow incompressible data by ~0.4%, and HDF5 metadata, the
// chunk table and the labels need a little more. The sweep holds one variant at a time.
uint64_t VariantDiskBound(const SweepPlan& plan, int64_t samples, int64_t sample_bytes);

}  // namespace h5feed::bench
