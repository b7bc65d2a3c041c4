// EpochOrder, SamplesPerRank and StreamSeed (sampler/epoch_order.h).

#include "sampler/epoch_order.h"

#include <algorithm>
#include <numeric>
#include <span>
#include <string>

#include "h5feed/error.h"
#include "sampler/permutation.h"

namespace h5feed::sampler {
namespace {

using transform::RandomStream;

[[noreturn]] void Reject(const std::string& message) {
  throw Error(ErrorCode::kInvalidArgument, "epoch order: " + message);
}

void ValidateGeometry(const SampleGeometry& geometry) {
  if (geometry.samples() <= 0) {
    Reject("the dataset has " + std::to_string(geometry.samples()) +
           " samples; it needs at least one to be read");
  }
}

void ValidateShard(const ShardOptions& shard) {
  if (shard.world_size < 1) {
    Reject("world_size is " + std::to_string(shard.world_size) + "; it must be at least 1");
  }
  if (shard.rank < 0 || shard.rank >= shard.world_size) {
    Reject("rank " + std::to_string(shard.rank) + " is outside 0.." +
           std::to_string(shard.world_size - 1) + " for world_size " +
           std::to_string(shard.world_size));
  }
}

// A rank's rows in the order of the chunk-ordered global sequence, cut into runs: maximal
// stretches of consecutive rows from one chunk. Run i is rows[run_starts[i], run_starts[i + 1]).
// A chunk shared with a neighbour rank is a run like any other, just shorter. Only when the
// whole dataset is smaller than about two chunks can the padding wrap round into the chunk the
// block began with; that chunk then forms two runs and this rank reads it twice.
struct Block {
  std::vector<int64_t> rows;
  std::vector<size_t> run_starts;
  size_t runs() const { return run_starts.size() - 1; }
};

// Positions [begin, begin + count) of the global sequence that visits the chunks in
// `chunk_order`, each chunk's rows in file order, repeated cyclically past its end (the padding).
Block ChunkBlock(const SampleGeometry& geometry, std::span<const int64_t> chunk_order,
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

  Block block;
  block.rows.reserve(static_cast<size_t>(count));
  int64_t previous_chunk = -1;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t chunk = chunk_order[slot];
    if (chunk != previous_chunk) block.run_starts.push_back(block.rows.size());
    previous_chunk = chunk;
    block.rows.push_back(geometry.first_row(chunk) + within);
    if (++within == geometry.rows_in(chunk)) {
      within = 0;
      if (++slot == chunk_order.size()) slot = 0;
    }
  }
  block.run_starts.push_back(block.rows.size());
  return block;
}

// chunks:W: the runs W at a time, each group's rows shuffled together. Every row of a run stays
// within its group's span of at most W chunks' rows, so a cache of W chunks reads each once.
void ShuffleWindows(Block& block, int64_t window, SplitMix64& rng) {
  const size_t step = static_cast<size_t>(window);
  for (size_t first = 0, last = 0; first < block.runs(); first = last) {
    last = first + std::min(step, block.runs() - first);
    std::span<int64_t> rows(block.rows.data() + block.run_starts[first],
                            block.run_starts[last] - block.run_starts[first]);
    Shuffle(rows, rng);
  }
}

// quasi:W, as FFCV's QuasiRandomSampler: each run's rows shuffled, then an active set of at
// most W runs taken in run order; each draw takes the next row of a uniformly chosen active
// run, and a run that runs out is replaced in place by the next run not yet opened.
std::vector<int64_t> QuasiOrder(Block& block, int64_t window, SplitMix64& rng) {
  for (size_t run = 0; run < block.runs(); ++run) {
    Shuffle(std::span<int64_t>(block.rows.data() + block.run_starts[run],
                               block.run_starts[run + 1] - block.run_starts[run]),
            rng);
  }
  std::vector<size_t> cursor(block.run_starts.begin(), block.run_starts.end() - 1);
  std::vector<size_t> active;
  size_t next_run = 0;
  while (next_run < block.runs() && active.size() < static_cast<size_t>(window)) {
    active.push_back(next_run++);
  }
  std::vector<int64_t> order;
  order.reserve(block.rows.size());
  while (!active.empty()) {
    const size_t pick = static_cast<size_t>(rng.Below(active.size()));
    const size_t run = active[pick];
    order.push_back(block.rows[cursor[run]++]);
    if (cursor[run] == block.run_starts[run + 1]) {
      if (next_run < block.runs()) {
        active[pick] = next_run++;
      } else {
        active[pick] = active.back();
        active.pop_back();
      }
    }
  }
  return order;
}

std::vector<int64_t> RandomOrder(const SampleGeometry& geometry, const ShardOptions& shard,
                                 int64_t per_rank, uint64_t seed, int64_t epoch) {
  const std::vector<int64_t> permutation =
      Permutation(geometry.samples(), StreamSeed(seed, epoch, RandomStream::kGlobalPermutation, 0));
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

int64_t SamplesPerRank(const SampleGeometry& geometry, const ShardOptions& shard) {
  ValidateGeometry(geometry);
  ValidateShard(shard);
  const int64_t n = geometry.samples();
  const int64_t world = shard.world_size;
  const int64_t per_rank = shard.drop_last ? n / world : n / world + (n % world != 0 ? 1 : 0);
  if (per_rank == 0) {
    Reject("each of the " + std::to_string(world) + " ranks would get 0 of the " +
           std::to_string(n) + " samples with drop_last; use at most " + std::to_string(n) +
           " ranks, or turn drop_last off so ranks repeat samples");
  }
  return per_rank;
}

std::vector<int64_t> EpochOrder(const SampleGeometry& geometry, const SamplerOptions& sampler,
                                const ShardOptions& shard, uint64_t seed, int64_t epoch) {
  const int64_t per_rank = SamplesPerRank(geometry, shard);
  if (sampler.window < 1) {
    Reject("sampler " + sampler.ToString() + " has window " + std::to_string(sampler.window) +
           "; it must be at least 1");
  }
  using Kind = SamplerOptions::Kind;
  if (sampler.kind == Kind::kRandom) return RandomOrder(geometry, shard, per_rank, seed, epoch);

  const int64_t world = shard.world_size;
  std::vector<int64_t> chunk_order;
  int64_t block_index = shard.rank;
  if (sampler.kind == Kind::kSequential) {
    chunk_order.resize(static_cast<size_t>(geometry.chunks()));
    std::iota(chunk_order.begin(), chunk_order.end(), int64_t{0});
    block_index = ((shard.rank + epoch % world) % world + world) % world;
  } else {
    chunk_order =
        Permutation(geometry.chunks(), StreamSeed(seed, epoch, RandomStream::kChunkOrder, 0));
  }
  Block block = ChunkBlock(geometry, chunk_order, block_index * per_rank, per_rank);
  if (sampler.kind == Kind::kSequential) return std::move(block.rows);

  SplitMix64 rng(StreamSeed(seed, epoch, RandomStream::kLocalShuffle, shard.rank));
  if (sampler.kind == Kind::kChunks) {
    ShuffleWindows(block, sampler.window, rng);
    return std::move(block.rows);
  }
  return QuasiOrder(block, sampler.window, rng);
}

}  // namespace h5feed::sampler
