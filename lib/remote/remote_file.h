#pragma once
// A file whose reads wait on a network: an io::RandomAccessFile (its reads, from many threads
// at once) with what only such a file needs. The bytes of an object are pinned to one version;
// ranges can be fetched ahead of their reads, within a memory limit; bytes that failed a check
// can be forgotten, so the next read goes back to the source; and reads waiting on a stalled
// server can be cut short. A local file has none of this: the chunk source that reads a remote
// file (source/remote_chunk_source.h) is the one that uses it.
//
// Thread-safety: ReadAt, version and PrefetchAt may be called from many threads at once; the
// rest from one thread at a time, concurrently with reads.

#include <cstdint>
#include <string>

#include "io/ahead.h"
#include "io/random_access_file.h"

namespace h5feed::remote {

class RemoteFile : public io::RandomAccessFile {
 public:
  // Which version of the object is read (its ETag, else Last-Modified and size): every read
  // returns bytes of that version or throws.
  virtual std::string version() const = 0;

  // Starts fetching [offset, offset + length) so that a later ReadAt of exactly that range
  // finds its bytes here or on their way. kFull: the file holds as many fetched bytes as it
  // should (the link's bandwidth x round trip, within LimitPrefetch): ask again later.
  // kNotNeeded: an empty range or one outside the object (ReadAt reports it).
  using Prefetch = io::Ahead;
  virtual Prefetch PrefetchAt(uint64_t offset, uint64_t length) = 0;
  // Drops what was fetched (or is on its way) for that range, or for every range: it will not
  // be read after all.
  virtual void DropPrefetch(uint64_t offset, uint64_t length) = 0;
  virtual void DropAllPrefetches() = 0;
  // The most bytes prefetches may hold at once (memory the caller grants them).
  virtual void LimitPrefetch(uint64_t bytes) = 0;

  // The bytes read from [offset, offset + length) failed a check (a checksum): drops every
  // copy kept of them (prefetched, spilled to disk), so the next ReadAt of the range goes back
  // to the source: a response corrupted on its way is fetched again.
  virtual void Forget(uint64_t offset, uint64_t length) = 0;

  // Reads waiting on the network, and those that start before ResumeReads, end at once with
  // Error(kCancelled): a reader that stops does not wait for a slow or stalled server.
  virtual void CancelReads() = 0;
  virtual void ResumeReads() = 0;
};

}  // namespace h5feed::remote
