#pragma once
// A rank's block of a chunk-aware epoch sequence, cut into runs of one chunk, and the local
// shuffle each chunk-aware sampler gives it (epoch_order.h describes both). Two callers build
// blocks: EpochOrder finds a rank's block in the epoch's chunk order without listing the whole
// sequence (epoch_order.cc), and the elastic orders deal a remainder of an epoch to a new number
// of ranks (elastic_order.cc). Both end in LocalOrder, so a block of the same rows gets the same
// order whichever built it.
//
// The elastic orders also need to know which entries an old rank had not yet delivered when
// the job stopped: LocalOrderSlice answers that with LocalOrder's own draws, but without
// shuffling what the cut does not split.

#include <cstdint>
#include <span>
#include <vector>

#include "h5feed/sampler_options.h"

namespace h5feed::sampler {

// A rank's share of a sequence in sequence order, cut into runs: maximal stretches of
// consecutive entries whose rows lie in one chunk. Run i is entries[run_starts[i],
// run_starts[i + 1]). The local shuffles only move entries, so any entries (rows, or positions
// of rows) get the same permutation. A chunk shared with a neighbour rank is a run like any
// other, just shorter. Only when the sequence is shorter than about two chunks can the padding
// wrap round into the chunk the block began with; that chunk then forms two runs and this rank
// reads it twice.
struct RankBlock {
  std::vector<int64_t> entries;
  std::vector<size_t> run_starts;
  size_t runs() const { return run_starts.size() - 1; }
};

// The order a rank visits its block's entries in: sequential keeps it; chunks:W shuffles the
// runs' entries W runs at a time; quasi:W draws as FFCV's QuasiRandomSampler (epoch_order.h).
// All draws come from SplitMix64(stream_seed).
std::vector<int64_t> LocalOrder(RankBlock block, const SamplerOptions& sampler,
                                uint64_t stream_seed);

// Offsets [begin, end) into a block: entry i of a block is offset i.
struct OffsetSpan {
  int64_t begin = 0;
  int64_t end = 0;

  friend bool operator==(const OffsetSpan&, const OffsetSpan&) = default;
};

// Which entries LocalOrder places at [begin, end) of its order of a block whose runs hold
// `run_lengths` entries (each >= 1; 0 <= begin <= end <= their sum), as offsets: sorted,
// disjoint spans, none adjacent to the next. The set is exactly LocalOrder's, since the draws
// are its own, but only a shuffle that a cut (begin, or end below the block's size) splits is
// carried out: chunks:W shuffles the windows holding a cut and only draws for the windows
// before; quasi:W draws every run's shuffle (they precede the picks) and its picks up to the
// last cut, and shuffles only the runs that were open at a cut. A window or run wholly inside
// [begin, end) is a set, whatever its order.
std::vector<OffsetSpan> LocalOrderSlice(std::span<const int64_t> run_lengths,
                                        const SamplerOptions& sampler, uint64_t stream_seed,
                                        int64_t begin, int64_t end);

}  // namespace h5feed::sampler
