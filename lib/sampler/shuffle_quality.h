#pragma once
// How random an epoch order looks and how many chunks its batches touch: the two sides of the
// sampler's trade-off, reported by `h5feed bench` next to chunk reads per epoch.

#include <cstdint>
#include <span>

#include "chunk_rows.h"

namespace h5feed::sampler {

struct ShuffleQuality {
  // MosaicML Streaming's shuffle-quality measure: the Shannon entropy, in bits, of the
  // empirical distribution of the distances |order[i + 1] - order[i]| between consecutive
  // samples, each distinct distance its own outcome. 0 for file order (every distance is 1);
  // for a global permutation of N rows about log2(N) - 0.3, at most log2(N - 1) since there
  // are only N - 1 distances. It grows with the dataset, so compare orders of one dataset only,
  // or use delta_entropy_ratio.
  //
  // Distances are deliberately not bucketed by floor(log2(d)): log buckets put ~3/4 of a random
  // order's distances into its top 3 buckets, while a window shuffle adds a second cluster of
  // small within-chunk distances, so chunks:4 would score ~3.1 bits against random's ~2.5 and
  // the figure would rank a windowed shuffle above a true one.
  double delta_entropy_bits = 0;
  // The mean number of distinct chunks among the samples of a batch (consecutive groups of
  // batch_size; the last batch may be shorter). What a batch costs in chunk reads when the
  // cache holds nothing, and how many parts of the file a batch mixes.
  double chunks_per_batch = 0;
  // delta_entropy_bits as a fraction of a random order's, comparable across dataset sizes: the
  // order's figure divided by that of a shuffle (fixed seed) of the same rows. About 0 for file
  // order, about 1 for a random permutation, in between for the chunk-aware samplers; 1 when
  // even the shuffle scores 0 (fewer than 3 rows, or a single distinct row).
  double delta_entropy_ratio = 0;
};

// Measures `order` (dataset rows of `chunks`) read in batches of `batch_size`. Throws
// Error(kInvalidArgument) on batch_size < 1 or a row outside [0, chunks.samples()).
// O(len log len) time, O(len) memory.
ShuffleQuality MeasureShuffleQuality(std::span<const int64_t> order, const ChunkRows& chunks,
                                     int64_t batch_size);

}  // namespace h5feed::sampler
