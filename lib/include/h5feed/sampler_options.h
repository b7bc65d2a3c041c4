#pragma once
// Which order the reader visits samples in, and which share of them this process reads.
//
// A chunk of K samples is the unit of I/O and decompression, so every sampler trades chunk
// reads against randomness. Every order is a pure function of (file geometry, these options,
// seed, epoch): the same seed gives the same batches on every run and every platform, all ranks
// agree without talking, and resuming at (epoch, position) costs one order computation.

#include <cstdint>
#include <string>
#include <string_view>

namespace h5feed {

struct SamplerOptions {
  // Figures below: 50,000 samples in chunks of K = 64 (782 chunks), batches of 256, one rank.
  // "Reads" assumes a cache of W chunks (plus prefetch) much smaller than the file.
  // "Randomness" is delta_entropy_ratio of sampler/shuffle_quality.h: the entropy of the
  // distances between consecutive samples as a fraction of a true shuffle's (0 = file order,
  // 1 = as random as a global permutation).
  enum class Kind {
    // Rows in file order. Reads each chunk once; randomness 0; every batch holds 4 whole
    // chunks. Right for evaluation, and for files the converter already shuffled when the
    // order need not change between epochs.
    kSequential,
    // A global permutation per epoch (torch's DistributedSampler order). Randomness 1.00, but
    // a batch touches nearly one chunk per sample and each chunk is read and decompressed up to
    // K times per epoch unless the whole file fits in the cache. Right for files that fit the
    // cache (CIFAR-sized), and the baseline the others are measured against.
    kRandom,
    // "chunks:W": shuffle the chunk order, take W chunks at a time and shuffle their samples
    // together (libtorch ChunkDataset's cross_chunk_shuffle_count). Reads each chunk once per
    // epoch with a cache of W chunks. Randomness grows with W, close to random's from W = 8;
    // a batch mixes about W chunks (docs/bench.md, "Shuffle quality"). The default: at W = 8
    // it costs a cache of 8 chunks and is nearly as random as random.
    kChunks,
    // "quasi:W": FFCV's quasi-random order. W chunks are open at a time; each sample comes from
    // a random open chunk, and an exhausted chunk is replaced by the next one in a shuffled
    // chunk order. Reads each chunk once with a cache of W chunks, like chunks:W, with about
    // the same randomness, but the window slides sample by sample instead of jumping every W
    // chunks, so batches mix a few more chunks and no batch ends a window abruptly
    // (docs/bench.md, "Shuffle quality").
    kQuasi,
  };
  Kind kind = Kind::kChunks;
  // chunks: how many chunks are shuffled together; quasi: how many chunks are open at once. The
  // cache must hold this many decompressed chunks (plus the prefetch) for each chunk to be read
  // once per epoch. Used by chunks and quasi only, but must be >= 1 for every kind.
  int64_t window = 8;

  // Parses "sequential", "random", "chunks", "chunks:W", "quasi", "quasi:W" (W >= 1, default 8).
  // Throws Error(kInvalidArgument) naming the accepted forms.
  static SamplerOptions Parse(std::string_view text);
  // The inverse of Parse: "sequential", "random", "chunks:8", "quasi:8".
  std::string ToString() const;

  friend bool operator==(const SamplerOptions&, const SamplerOptions&) = default;
};

// Which share of each epoch this process reads, following torch's DistributedSampler contract:
// every rank yields the same number of samples, so collective operations never wait on a rank
// that ran out.
struct ShardOptions {
  int rank = 0;        // 0 <= rank < world_size
  int world_size = 1;  // >= 1
  // false: each rank yields ceil(N / world_size) samples, the last few repeating samples from
  // the start of the epoch (at most world_size - 1 repeats per epoch).
  // true: each rank yields floor(N / world_size) samples and up to world_size - 1 samples are
  // skipped this epoch (which ones changes with the epoch for the shuffling samplers).
  bool drop_last = false;

  friend bool operator==(const ShardOptions&, const ShardOptions&) = default;
};

// A finished stretch of an epoch that ran on another number of ranks before the job changed
// size (docs/reader.md, "Resuming on another number of ranks"): `world_size` ranks each
// delivered `steps` steps, echo copies counted. steps >= 1: a stretch that delivered nothing
// changes nothing and is not recorded.
struct EpochStretch {
  int world_size = 0;
  int64_t steps = 0;

  friend bool operator==(const EpochStretch&, const EpochStretch&) = default;
};

}  // namespace h5feed
