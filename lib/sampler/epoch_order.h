#pragma once
// Epoch orders: which dataset rows a rank visits, and in which order, in one epoch.
//
// An order is a pure function of (geometry, sampler options, shard options, seed, epoch): runs
// are reproducible, every rank computes its share without talking to the others, and resuming
// at (epoch, position) costs one EpochOrder call, never a replay of earlier epochs. All
// randomness comes from SplitMix64 and Shuffle (sampler/permutation.h), so the same arguments
// give the same order on every platform and in every language binding.
//
// Sharding keeps torch DistributedSampler's contract: every rank yields SamplesPerRank rows.
//   random: exactly DistributedSampler's arithmetic: a global permutation P of the N rows,
//     padded cyclically (P[0], P[1], ... appended) to world * per_rank rows or truncated to
//     it with drop_last; rank r takes positions r, r + world, r + 2 * world, ...
//   sequential, chunks, quasi (chunk-aware): the epoch's global sequence is the rows chunk by
//     chunk, in chunk order (file order for sequential, shuffled per epoch for chunks and
//     quasi), padded cyclically or truncated the same way; rank r takes the contiguous block
//     [b * per_rank, (b + 1) * per_rank) with b = r (sequential: b = (r + epoch) mod world, so
//     the block a rank reads rotates between epochs), and only then the kind's local shuffle
//     runs over that block. Each rank thus reads only its own chunks, about per_rank / K of
//     them plus at most two it shares with a neighbour, so the job as a whole still reads each
//     chunk about once per epoch. Dealing rows round-robin as DistributedSampler does would make
//     every rank read every chunk: world_size times the I/O and decompression.
//
// Random streams (transform/random_streams.h, which lists every stream of h5feed):
//   StreamSeed(seed, epoch, stream, lane) = StreamKey(seed, epoch, stream, lane)
//       = Mix(Mix(Mix(Mix(seed) ^ uint64(epoch)) ^ uint64(stream)) ^ uint64(lane))
// so two epochs (or two streams, or two lanes) with the other arguments equal always get
// different seeds, not merely probably different ones. Shared
// streams (the global permutation, the chunk order) use lane 0 so every rank computes the same
// one; the local shuffle uses lane = rank so ranks shuffle independently (in the later stretches
// of an epoch resumed on another world size, lane = stretch * 2^32 + rank: elastic_order.h).

#include <cstdint>
#include <vector>

#include "chunk_rows.h"
#include "h5feed/sampler_options.h"
#include "transform/random_streams.h"

namespace h5feed::sampler {

// The rows of a dataset and how they are grouped into chunks (chunk_rows.h).
using SampleGeometry = ChunkRows;

// The seed of one of the sampler's random streams (kGlobalPermutation, kChunkOrder,
// kLocalShuffle); see the file comment for the exact definition.
uint64_t StreamSeed(uint64_t seed, int64_t epoch, transform::RandomStream stream, int64_t lane);

// chunks:W and quasi:W: the samplers that keep a window of W chunks open (sequential and
// random have none).
bool UsesWindow(const SamplerOptions& sampler);

// The pieces of the orders below, which the elastic orders (elastic_order.h) deal from too.
// random: the permutation of all rows (kGlobalPermutation, lane 0).
std::vector<int64_t> GlobalPermutation(const SampleGeometry& geometry, uint64_t seed,
                                       int64_t epoch);
// sequential, chunks, quasi: the order the global sequence visits the chunks in (file order
// for sequential, a shuffle, kChunkOrder lane 0, for the others).
std::vector<int64_t> ChunkOrder(const SampleGeometry& geometry, const SamplerOptions& sampler,
                                uint64_t seed, int64_t epoch);
// sequential, chunks, quasi: the block of the global sequence rank shard.rank takes (its rank;
// for sequential rotated by the epoch). shard must be valid.
int64_t BlockIndex(const SamplerOptions& sampler, const ShardOptions& shard, int64_t epoch);

// The number of rows every rank yields per epoch: ceil(N / world_size), or floor(N / world_size)
// with drop_last. Throws Error(kInvalidArgument) when the geometry or the shard is invalid or
// the share is 0 rows (more ranks than rows with drop_last).
int64_t SamplesPerRank(const SampleGeometry& geometry, const ShardOptions& shard);

// The rows rank shard.rank visits in `epoch`, in order: SamplesPerRank(geometry, shard) of them.
// Any epoch (even negative) is accepted. Throws Error(kInvalidArgument) as SamplesPerRank does,
// and when the sampler's window is below 1. Costs O(N) time and memory for random (the global
// permutation), O(N / K + per_rank) for the others.
std::vector<int64_t> EpochOrder(const SampleGeometry& geometry, const SamplerOptions& sampler,
                                const ShardOptions& shard, uint64_t seed, int64_t epoch);

}  // namespace h5feed::sampler
