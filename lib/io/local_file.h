#pragma once
// A file on a local file system: an io::RandomAccessFile (reads from many threads at once,
// uncompressed ranges used in place) that also reads ahead, as a remote file fetches ahead
// (remote/remote_file.h): ranges asked for ahead of their reads are read by threads of the
// file's own, as many at once as the device needs (disk_readahead.h), so that the device
// always has requests to serve while the reader decodes and gathers. The local chunk source
// (source/local_chunk_source.h) is the one that asks.
//
// Read through the page cache (the default), or with O_DIRECT (`direct`), for data sets larger
// than memory, where the page cache would only evict what the trainer needs: every read then
// goes to the device, through buffers aligned as O_DIRECT asks (aligned_buffer.h), and the
// file's pages are never cached.
//
// Thread-safety: every member may be called from many threads at once.

#include <cstdint>
#include <memory>
#include <string>

#include "io/ahead.h"
#include "io/random_access_file.h"

namespace h5feed::io {

struct LocalFileOptions {
  // O_DIRECT: every read from the device into buffers of ours, none through the page cache.
  bool direct = false;
  // Without `direct`: MapAt maps ranges the page cache holds (LoaderOptions::map_file); false
  // reads everything with pread. With `direct`, MapAt hands over the buffer a range was read
  // into, whatever this says: nothing of the file is mapped.
  bool map = true;
};

class LocalFile : public RandomAccessFile {
 public:
  // Starts reading [offset, offset + length) so that a later ReadAt or MapAt of exactly that
  // range finds its bytes here (direct) or in the page cache, or on their way. kFull: as many
  // bytes are on their way or waiting as the device needs (its bandwidth x response time,
  // measured as the file reads), within LimitPrefetch: ask again later. kNotNeeded: an empty
  // range, or one outside the file (the read reports it). A range the page cache holds is
  // held as arrived, without reading it.
  virtual Ahead PrefetchAt(uint64_t offset, uint64_t length) = 0;
  // That range, or every range, will not be read after all.
  virtual void DropPrefetch(uint64_t offset, uint64_t length) = 0;
  virtual void DropAllPrefetches() = 0;
  // The most bytes prefetches may hold at once (read ahead and not yet read, and, direct, the
  // buffers kept for them).
  virtual void LimitPrefetch(uint64_t bytes) = 0;
  virtual bool direct() const = 0;
  // Whether the page cache holds the whole file now, judged by a sample of its pages (so a
  // reader has nothing to read ahead); false for a direct file, whose reads never use it.
  virtual bool InPageCache() const = 0;
};

// Opens `path` for reading (O_RDONLY | O_CLOEXEC, with O_DIRECT when options.direct). Throws
// Error(kNotFound) when it does not exist, kInvalidArgument when it is not a regular file,
// kUnsupported when its file system refuses O_DIRECT (tmpfs before Linux 6.6, some FUSE and
// network file systems), kIo (with the errno text) when it cannot be opened.
std::unique_ptr<LocalFile> OpenLocalFile(const std::string& path, const LocalFileOptions& options);

}  // namespace h5feed::io
