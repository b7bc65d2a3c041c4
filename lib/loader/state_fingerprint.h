#pragma once
// What a LoaderState carries so Restore refuses a state from another file or from options that
// change the order: a step number only means something for the same epoch order cut into the
// same batches.
//
// Covered, in this order: the dataset's geometry (samples, H, W, C, chunk samples, chunks) and
// the options that decide which rows a delivered step holds: batch_size, drop_last_batch, the
// sampler (kind, window), shard.drop_last, echo. Not covered: shard.world_size (a state carries
// its own, and Restore deals the rest of the epoch to another one: sampler/elastic_order.h),
// shard.rank (every rank is at the same step, so one rank's saved state resumes them all, as
// torch checkpoints written by rank 0 expect), the seed (checked on its own, for a clearer
// message), and what does not change the rows (cache, threads, slots, normalization,
// checksums).
//
// Fingerprint: h = 0; for each value v in the order above: h = SplitMix64(h ^ uint64(v)).Next().
// States from before elastic resume (no world size) carry the legacy fingerprint: the same
// recipe with shard.world_size hashed between the window and shard.drop_last.
// Order key: the same values as text, "name=value" separated by spaces, so that Restore can say
// which of them differ.

#include <cstdint>
#include <string>

#include "h5feed/loader_options.h"
#include "index/dataset_index.h"

namespace h5feed::loader {

// What a loader's states carry, and what a state is checked against.
struct StateIdentity {
  uint64_t fingerprint = 0;
  uint64_t legacy_fingerprint = 0;  // what states without a world size carry
  std::string order_key;
  std::string path;  // the file, for messages
};

StateIdentity IdentifyState(const index::DatasetIndex& dataset, const LoaderOptions& options);

uint64_t StateFingerprint(const index::DatasetIndex& dataset, const LoaderOptions& options);
uint64_t LegacyStateFingerprint(const index::DatasetIndex& dataset, const LoaderOptions& options);
std::string OrderKey(const index::DatasetIndex& dataset, const LoaderOptions& options);

// The values of two order keys that differ, "batch_size 10 in the state, 20 here; sampler ...",
// in `current`'s order; a value only one key has counts as differing. Empty when they agree.
std::string OrderKeyDifferences(const std::string& saved, const std::string& current);

}  // namespace h5feed::loader
