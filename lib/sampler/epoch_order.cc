// EpochOrder, SamplesPerRank and StreamSeed (sampler/epoch_order.h).

#include "sampler/epoch_order.h"

#include <algorithm>
#include <numeric>
#include <span>
#include <string>

#include "h5feed/error.h"
#include "make_error.h"
#include "sampler/permutation.h"
#include "sampler/rank_block.h"

namespace h5feed::sampler {
namespace {

using transform::RandomStream;

template <typename... Args>
[[noreturn]] void Reject(fmt::format_string<Args...> format, Args&&... args) {
  throw MakeError(ErrorCode::kInvalidArgument, "epoch order: {}",
                  fmt::format(format, std::forward<Args>(args)...));
}

void ValidateGeometry(const SampleGeometry& geometry) {
  if (geometry.samples() <= 0) {
    Reject("the dataset has {} samples; it needs at least one to be read", geometry.samples());
  }
}

void ValidateShard(const ShardOptions& shard) {
  if (shard.world_size < 1) {
    Reject("world_size is {}; it must be at least 1", shard.world_size);
  }
  if (shard.rank < 0 || shard.rank >= shard.world_size) {
    Reject("rank {} is outside 0..{} for world_size {}", shard.rank, shard.world_size - 1,
           shard.world_size);
  }
}

// Positions [begin, begin + count) of the global sequence that visits the chunks in
// `chunk_order`, each chunk's rows in file order, repeated cyclically past its end (the padding),
// as rows: found without listing the sequence.
RankBlock ChunkBlock(const SampleGeometry& geometry, std::span<const int64_t> chunk_order,
                     int64_t begin, int64_t count) {
  const int64_t n = geometry.samples();
  std::vector<int64_t> offsets(chunk_order.size() + 1, 0);
  for (size_t slot = 0; slot < chunk_order.size(); ++slot) {
    offsets[slot + 1] = offsets[slot] + geometry.rows_in(chunk_order[slot]);
  }
  const int64_t start = begin % n;
  size_t slot = static_cast<size_t>(std::upper_bound(offsets.begin(), offsets.end(), start) -
                                    offsets.begin() - 1);
  int64_t within = start - offsets[slot];

  RankBlock block;
  block.entries.reserve(static_cast<size_t>(count));
  int64_t previous_chunk = -1;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t chunk = chunk_order[slot];
    if (chunk != previous_chunk) block.run_starts.push_back(block.entries.size());
    previous_chunk = chunk;
    block.entries.push_back(geometry.first_row(chunk) + within);
    if (++within == geometry.rows_in(chunk)) {
      within = 0;
      if (++slot == chunk_order.size()) slot = 0;
    }
  }
  block.run_starts.push_back(block.entries.size());
  return block;
}

std::vector<int64_t> RandomOrder(const SampleGeometry& geometry, const ShardOptions& shard,
                                 int64_t per_rank, uint64_t seed, int64_t epoch) {
  const std::vector<int64_t> permutation = GlobalPermutation(geometry, seed, epoch);
  std::vector<int64_t> order(static_cast<size_t>(per_rank));
  for (int64_t i = 0; i < per_rank; ++i) {
    const int64_t position = shard.rank + i * shard.world_size;
    order[static_cast<size_t>(i)] = permutation[static_cast<size_t>(position % geometry.samples())];
  }
  return order;
}

}  // namespace

uint64_t StreamSeed(uint64_t seed, int64_t epoch, RandomStream stream, int64_t lane) {
  return transform::StreamKey(seed, epoch, stream, lane);
}

bool UsesWindow(const SamplerOptions& sampler) {
  return sampler.kind == SamplerOptions::Kind::kChunks ||
         sampler.kind == SamplerOptions::Kind::kQuasi;
}

std::vector<int64_t> GlobalPermutation(const SampleGeometry& geometry, uint64_t seed,
                                       int64_t epoch) {
  return Permutation(geometry.samples(),
                     StreamSeed(seed, epoch, RandomStream::kGlobalPermutation, 0));
}

std::vector<int64_t> ChunkOrder(const SampleGeometry& geometry, const SamplerOptions& sampler,
                                uint64_t seed, int64_t epoch) {
  if (sampler.kind != SamplerOptions::Kind::kSequential) {
    return Permutation(geometry.chunks(), StreamSeed(seed, epoch, RandomStream::kChunkOrder, 0));
  }
  std::vector<int64_t> chunk_order(static_cast<size_t>(geometry.chunks()));
  std::iota(chunk_order.begin(), chunk_order.end(), int64_t{0});
  return chunk_order;
}

int64_t BlockIndex(const SamplerOptions& sampler, const ShardOptions& shard, int64_t epoch) {
  if (sampler.kind != SamplerOptions::Kind::kSequential) return shard.rank;
  const int64_t world = shard.world_size;
  return ((shard.rank + epoch % world) % world + world) % world;
}

int64_t SamplesPerRank(const SampleGeometry& geometry, const ShardOptions& shard) {
  ValidateGeometry(geometry);
  ValidateShard(shard);
  const int64_t n = geometry.samples();
  const int64_t world = shard.world_size;
  const int64_t per_rank = shard.drop_last ? n / world : n / world + (n % world != 0 ? 1 : 0);
  if (per_rank == 0) {
    Reject(
        "each of the {} ranks would get 0 of the {} samples with drop_last; use at most {} ranks, "
        "or turn drop_last off so ranks repeat samples",
        world, n, n);
  }
  return per_rank;
}

std::vector<int64_t> EpochOrder(const SampleGeometry& geometry, const SamplerOptions& sampler,
                                const ShardOptions& shard, uint64_t seed, int64_t epoch) {
  const int64_t per_rank = SamplesPerRank(geometry, shard);
  if (sampler.window < 1) {
    Reject("sampler {} has window {}; it must be at least 1", sampler.ToString(), sampler.window);
  }
  if (sampler.kind == SamplerOptions::Kind::kRandom)
    return RandomOrder(geometry, shard, per_rank, seed, epoch);

  return LocalOrder(ChunkBlock(geometry, ChunkOrder(geometry, sampler, seed, epoch),
                               BlockIndex(sampler, shard, epoch) * per_rank, per_rank),
                    sampler, StreamSeed(seed, epoch, RandomStream::kLocalShuffle, shard.rank));
}

}  // namespace h5feed::sampler
