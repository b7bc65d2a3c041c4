#include "loader/state_fingerprint.h"

#include <initializer_list>

#include "sampler/permutation.h"

namespace h5feed::loader {

uint64_t StateFingerprint(const index::DatasetIndex& dataset, const LoaderOptions& options) {
  uint64_t hash = 0;
  for (int64_t value : std::initializer_list<int64_t>{
           dataset.samples, dataset.shape.height, dataset.shape.width, dataset.shape.channels,
           dataset.chunk_samples, dataset.chunk_count(), options.batch_size,
           options.drop_last_batch ? 1 : 0, static_cast<int64_t>(options.sampler.kind),
           options.sampler.window, options.shard.world_size, options.shard.drop_last ? 1 : 0,
           options.echo}) {
    hash = transform::SplitMix64(hash ^ static_cast<uint64_t>(value)).Next();
  }
  return hash;
}

}  // namespace h5feed::loader
