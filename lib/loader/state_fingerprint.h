#pragma once
// The fingerprint a LoaderState carries so Restore refuses a state from another file or from
// options that change the order: a step number only means something for the same epoch order
// cut into the same batches.
//
// Hashed: the dataset's geometry (samples, H, W, C, chunk samples, chunks) and the options
// that decide which rows a delivered step holds: batch_size, drop_last_batch, the sampler
// (kind, window), shard.world_size and shard.drop_last, echo. Not hashed: the seed (checked
// on its own, for a clearer message), shard.rank (every rank is at the same step, so one
// rank's saved state resumes them all, as torch checkpoints written by rank 0 expect), and
// what does not change the rows (cache, threads, slots, normalization, checksums).
//
// Hash: h = 0; for each value v in the order above: h = SplitMix64(h ^ uint64(v)).Next().

#include <cstdint>

#include "h5feed/loader_options.h"
#include "index/dataset_index.h"

namespace h5feed::loader {

uint64_t StateFingerprint(const index::DatasetIndex& dataset, const LoaderOptions& options);

}  // namespace h5feed::loader
