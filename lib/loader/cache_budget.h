#pragma once
// How Loader::Open shares cache_bytes out, in chunks: what the sampler keeps in use at once
// (its working set), and what is left for the assembler to load ahead of the steps
// (AssemblerOptions::prefetch_chunks); and the warning, said once at Open, when a sampler with
// a window cannot keep its working set and load its next chunks beside it.
//
// Plain values and functions; thread-safe.

#include <cstdint>
#include <optional>
#include <string>

#include "chunk_rows.h"
#include "h5feed/loader_options.h"

namespace h5feed::loader {

struct CacheBudget {
  int64_t chunk_bytes = 0;   // one decoded chunk; 0 for a file without chunks
  int64_t cache_chunks = 0;  // chunks cache_bytes holds
  // Chunks the sampler keeps in use at once, an upper estimate: its window (W for chunks:W and
  // quasi:W, one chunk for sequential), the chunks of the steps in flight (one step per slot,
  // each touching about batch / K + 1 chunks) and one pinned per thread. Under random every
  // chunk is in use; half the cache is a guess that the cache's own refusal of harmful
  // prefetches makes safe.
  int64_t working_set = 0;

  // What the assembler may prefetch ahead: the cache less the working set. Prefetching into
  // the working set's room evicts chunks that are needed again.
  int64_t prefetch_chunks() const;
};

// The budget of options.cache_bytes for `chunks`, each `chunk_bytes` decoded, read in batches
// of `batch_capacity` rows.
CacheBudget MeasureCacheBudget(const LoaderOptions& options, int64_t batch_capacity,
                               const ChunkRows& chunks, int64_t chunk_bytes);

// What Open warns of, or nullopt. chunks:W moves to a new window of W chunks every
// W x K / batch steps; with room for that window beside the working set, the assembler loads
// it while the last batches of the current one are gathered. Without it the trainer waits at
// every window switch (docs/reader.md, "Prefetching and window switches"). quasi:W replaces one
// chunk of its active set at a time, so it needs one ahead. With less than the working set, chunks
// are read more than once per epoch (the working set is an upper estimate, so "may"). The warning
// names the cache size that avoids it; there is none under sequential or random, nor when the cache
// holds all `chunk_count` chunks of `path`.
std::optional<std::string> CacheTooSmallWarning(const LoaderOptions& options,
                                                const CacheBudget& budget, int64_t chunk_count,
                                                const std::string& path);

}  // namespace h5feed::loader
