#pragma once
// The epoch orders a loader's runs take, the next one computed ahead. Trainers go from epoch e
// to e + 1, so when a run of e starts, e + 1's order is computed too (once, and kept: one more
// order's worth of memory); its first rows join the run's plan, so the cache loads them while
// e's last batches train, and the run of e + 1 takes that order instead of computing it again.
// Any other SetEpoch or Restore computes its order when its run starts (and finds those first
// chunks cached, or evicts them).
//
// Thread-safety: the loader's thread only.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "h5feed/sampler_options.h"
#include "sampler/epoch_order.h"

namespace h5feed::loader {

class EpochOrders {
 public:
  // The orders of EpochOrder(geometry, sampler, shard, seed, epoch); batch_size sizes
  // upcoming_start().
  EpochOrders(const sampler::SampleGeometry& geometry, const SamplerOptions& sampler,
              const ShardOptions& shard, uint64_t seed, int64_t batch_size);

  // Computes `epoch`'s order ahead, in place of the one held, and returns it (valid until the
  // next call). Open measures epoch 0's label mixing on it, and the first run takes it.
  std::span<const int64_t> ComputeAhead(int64_t epoch);

  // The order of `epoch` (the one computed ahead when it is that epoch's), or `resumed` when
  // given (the rest of an epoch resumed on another world size: sampler/elastic_order.h), and
  // the next epoch's computed ahead (none after the last epoch an int64 numbers).
  std::vector<int64_t> TakeAndLookAhead(int64_t epoch,
                                        std::optional<std::vector<int64_t>> resumed = {});

  // The rows of the order computed ahead that the cache may load while the current epoch
  // ends: its first window under chunks:W and quasi:W (the chunks its first batch waits for),
  // and at least two batches. Empty when none is held.
  std::span<const int64_t> upcoming_start() const;

 private:
  std::vector<int64_t> Compute(int64_t epoch) const;

  const sampler::SampleGeometry geometry_;
  const SamplerOptions sampler_;
  const ShardOptions shard_;
  const uint64_t seed_;
  const int64_t batch_size_;
  // The epoch of upcoming_order_, if one is held. (Any int64 numbers an epoch, -1 too.)
  std::optional<int64_t> upcoming_epoch_;
  std::vector<int64_t> upcoming_order_;
};

}  // namespace h5feed::loader
