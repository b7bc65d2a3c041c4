#pragma once
// Elastic orders: the rest of an epoch dealt to a new number of ranks, after the job that began
// it on N ranks stopped mid-epoch and resumed on M (docs/reader.md, "Resuming on another number
// of ranks").
//
// An epoch's plain orders are a pure function of (geometry, sampler, shard, seed, epoch)
// (epoch_order.h), and with synchronous training every rank has delivered the same number of
// steps when the job stops, so what is left of the epoch follows from the step count alone:
// every old rank's tail. Each stretch of an epoch run on one world size is a deal:
//
//   stretch 0: the epoch's global sequence (epoch_order.h), dealt to its W_0 ranks exactly as
//     EpochOrder deals it (the ranks' orders ARE the plain orders).
//   stretch j >= 1: the remainder R_j of stretch j - 1, dealt to its W_j ranks by the same rules
//     as a plain epoch with R_j as its global sequence: each rank gets ceil(|R_j| / W_j) rows,
//     the last few repeating R_j's first rows, or floor(|R_j| / W_j) with shard.drop_last,
//     leaving R_j's last rows out (0 rows a rank when |R_j| < W_j: the epoch has nothing left
//     for it). random strides through R_j (rank r takes positions r, r + W_j, ...); the
//     chunk-aware samplers give rank r the contiguous block r of R_j and run their local
//     shuffle over it with lane = j * 2^32 + r of kLocalShuffle (stretch 0's lane is the rank,
//     as in epoch_order.h; world sizes fit 31 bits, so no two (stretch, rank) share a lane).
//   The remainder of a stretch whose ranks each delivered `steps` steps: each rank's order
//     past the loaded steps delivered, ceil(steps / echo) batches (a step whose echo copies were
//     not all delivered counts as delivered: its rows were), up to what the rank would deliver
//     in the stretch (drop_last_batch leaves a short last batch's rows out, as in any epoch).
//     random keeps it in dealing order (it is a suffix of the strided sequence); the chunk-aware
//     samplers sort it by the epoch's chunk order (each chunk's rows by row), so that rows of a
//     chunk left by several old ranks form one run, read once, on one new rank.
//   A remainder holds each row once: the stretch's padding does not pass into it. A row the
//     padding repeats is done when any of its copies was delivered, and left once (at its own
//     position) when none was and one is left, so the next deal pads only with its own repeats.
//
// So across the job every row of the epoch is delivered once before and after each change, but for
// the repeats and omissions of the equal-count contract: the rest of the epoch after a change
// holds each row not yet delivered once, plus the new deal's padding, at most W_j - 1 repeats, of
// distinct rows unless fewer rows than that are left (or up to W_j - 1 rows left out with
// drop_last); a finished stretch's padding counts only where its ranks delivered it before the
// change. A short last batch of each rank's stretch is left out with drop_last_batch. Each
// chunk-aware rank of a later stretch reads about |R_j| / (W_j K) whole chunks plus at most two it
// shares with a neighbour, as in a plain epoch, so the job still reads each chunk about once per
// epoch (a chunk the old ranks had begun, in their open windows, is read once more by its new
// rank).
//
// Cost: no old rank's order is listed. A remainder is a set (it is listed in sequence order,
// whatever order the old ranks visited it in), and sequences are held as pieces of consecutive
// rows of one chunk, so a stretch costs O(its pieces) plus what the old ranks' local shuffles
// must draw to tell delivered from left (rank_block.h, LocalOrderSlice): nothing for
// sequential and random; for chunks:W the draws of the windows before each rank's stop and
// the shuffle of the window it stopped in; for quasi:W the draws of every run's shuffle, the
// picks up to the stop and the shuffles of the runs then open. Draws without the moves they
// would drive are cheap next to a shuffle of the rows. Telling a padded row's copies apart
// looks up fewer than 2 W_j positions in those slices (with drop_last_batch, also the slice of
// the short last batch of the blocks that hold them). Then the new rank's own order, one
// rank's share, as EpochOrder; random also recomputes the epoch's permutation, as its
// EpochOrder does. So a restore costs less than one whole epoch's EpochOrder for one or two
// changes (bench/elastic_order_bench.cc, bench/results/elastic.md); each further change adds
// its stretch's draws.

#include <cstdint>
#include <span>
#include <vector>

#include "h5feed/sampler_options.h"
#include "sampler/epoch_order.h"

namespace h5feed::sampler {

// How every rank cuts its order into steps (epoch_steps.h): the loader's batch options.
struct StepRules {
  int64_t batch_size = 1;
  bool drop_last_batch = false;
  int echo = 1;
};

// The rows rank shard.rank of shard.world_size visits in the rest of `epoch` after the
// finished stretches `stretches` (oldest first; at least one), in order. shard.drop_last holds
// for every stretch (it is part of the order's options). Throws Error(kInvalidArgument) for an
// invalid geometry, shard, window or rules (as EpochOrder), a stretch's world_size < 1 or
// steps < 1, or a stretch whose steps exceed what each of its ranks delivers in it (naming the
// stretch).
std::vector<int64_t> ElasticOrder(const SampleGeometry& geometry, const SamplerOptions& sampler,
                                  const ShardOptions& shard, uint64_t seed, int64_t epoch,
                                  const StepRules& rules, std::span<const EpochStretch> stretches);

}  // namespace h5feed::sampler
