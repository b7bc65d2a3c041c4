#pragma once
// What a chunk source whose reads wait on its medium (a network, a disk) does with the chunks
// that come next: it fetches their stored bytes ahead of their loads, so a load finds them
// here or on their way instead of waiting a round trip or a disk's response, and holds as many
// bytes ahead as its medium needs (the link's or the disk's bandwidth x response time, within
// its memory). The walker of a run's plan (pipeline/chunk_prefetcher.h) asks a source for it
// at the start of each run (ChunkSource::read_ahead) and tells it the chunks in the order the
// steps need them.
//
// Thread-safety: Fetch may be called from many threads at once; Drop and DropAll from one
// thread at a time, concurrently with fetches and loads.

#include <cstdint>

#include "io/ahead.h"

namespace h5feed::source {

class ReadAhead {
 public:
  virtual ~ReadAhead() = default;

  // Starts fetching chunk c's stored bytes. kFull: enough is held ahead, ask again later;
  // kNotNeeded: nothing to fetch for this chunk (read through HDF5, say).
  virtual io::Ahead Fetch(int64_t chunk) = 0;
  // What was fetched for chunk c, or for every chunk, will not be loaded after all.
  virtual void Drop(int64_t chunk) = 0;
  virtual void DropAll() = 0;
};

}  // namespace h5feed::source
