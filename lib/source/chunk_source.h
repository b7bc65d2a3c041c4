#pragma once
// Where the chunks of one dataset come from: everything between "chunk c of this dataset" and
// its decoded bytes in the cache, for every medium. A source reads the chunk's stored bytes,
// undoes its filters and checks it (index::ChunkReader), and adds what its medium needs: a
// local file hands over uncompressed chunks where they lie in the page cache; a remote object
// fetches bytes ahead of their loads, fetches a chunk again when it fails its check (a
// response corrupted on its way), and cuts loads short when a run stops. Whether a location
// is local or remote is asked once, when its source is opened (open_chunk_source.h); nothing
// above this module asks again.
//
// The cache decides which chunks to decode ahead; the walker of the run's plan
// (pipeline/chunk_prefetcher.h) tells the source which chunks come next through FetchAhead,
// and the source decides how many bytes ahead its medium needs.
//
// Thread-safety: Load, reader() and FetchAhead may be called from many threads at once;
// DropAhead, DropAllAhead, CancelLoads and ResumeLoads from one thread at a time, concurrently
// with loads. Borrows the dataset's index, which must outlive it; owns its file.

#include <cstdint>
#include <memory>

#include "cache/chunk_cache.h"
#include "index/chunk_reader.h"
#include "index/dataset_index.h"
#include "io/random_access_file.h"

namespace h5feed::source {

struct ChunkSourceOptions {
  bool verify_checksums = true;  // LoaderOptions::verify_checksums
  // A local file: uncompressed chunks used where they lie in the page cache (mapped); false
  // reads every chunk with pread.
  bool map_file = true;
  // A remote object: the most memory its bytes fetched ahead of their loads may take.
  uint64_t fetch_ahead_bytes = 0;
};

class ChunkSource {
 public:
  virtual ~ChunkSource() = default;
  ChunkSource(const ChunkSource&) = delete;
  ChunkSource& operator=(const ChunkSource&) = delete;

  // How chunks are decoded: their size, the per-row checks left to the caller (ChecksRows),
  // how errors name a chunk.
  const index::ChunkReader& reader() const { return reader_; }

  // Loads chunk c for the cache: decoded into target.Buffer(), or handed over where it lies
  // (target.Adopt). Throws Error as ChunkReader::Read does: kCorrupt naming the chunk, kIo,
  // kCancelled after CancelLoads.
  virtual cache::LoadResult Load(int64_t chunk, cache::ChunkCache::LoadTarget& target) = 0;

  // Whether loads hand chunks over where they lie, so the cache needs no buffers for them.
  virtual bool LoadsInPlace() const { return false; }

  // Fetching a chunk's stored bytes ahead of its Load, for a medium whose reads wait (a
  // network). kFull: the source holds as many bytes ahead as its medium needs; ask again
  // later. kNotNeeded: nothing to fetch for this chunk.
  enum class Ahead { kStarted, kHeld, kFull, kNotNeeded };
  // Whether FetchAhead ever does anything: a walker need not ask otherwise.
  virtual bool FetchesAhead() const { return false; }
  virtual Ahead FetchAhead(int64_t /*chunk*/) { return Ahead::kNotNeeded; }
  // What was fetched ahead for the chunk, or for every chunk, will not be loaded after all.
  virtual void DropAhead(int64_t /*chunk*/) {}
  virtual void DropAllAhead() {}

  // Loads waiting on the medium, and those that start before ResumeLoads, end at once with
  // Error(kCancelled): a run that stops does not wait for a stalled server. A local file's
  // reads do not wait on anyone: it ignores them.
  virtual void CancelLoads() {}
  virtual void ResumeLoads() {}

 protected:
  ChunkSource(const index::DatasetIndex& dataset, std::unique_ptr<io::RandomAccessFile> file,
              const index::ChunkReaderOptions& options);

  const index::DatasetIndex& dataset_;
  const std::unique_ptr<io::RandomAccessFile> file_;
  const index::ChunkReader reader_;  // reads file_
};

}  // namespace h5feed::source
