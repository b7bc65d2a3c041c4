#pragma once
// The Loader's fault-injection seam, for tests only (not installed, not in include/h5feed/):
// while a ScopedFileOpener lives, Loader::Open on the same thread reads its chunks through
// the file the opener returns instead of remote::OpenFile, so a test can hand the loader an
// io::RandomAccessFile that fails, ends early, flips bytes or is slow (tests/lib/io/
// faulty_file.h) and check what the trainer sees. The file's metadata (geometry, labels, the
// chunk table) is still read by HDF5 from the real file at Open; only chunk reads go through
// the seam, as they do in production.
//
// Thread-safety: the override is per thread (thread_local) and read only by Loader::Open, so
// loaders opened on other threads, and every loader's own worker threads, are unaffected.

#include <functional>
#include <memory>
#include <string>

#include "index/dataset_index.h"
#include "io/random_access_file.h"

namespace h5feed::loader {

using FileOpener = std::function<std::unique_ptr<io::RandomAccessFile>(const std::string& path)>;

class ScopedFileOpener {
 public:
  explicit ScopedFileOpener(FileOpener opener);
  ~ScopedFileOpener();  // restores the opener that was in place before
  ScopedFileOpener(const ScopedFileOpener&) = delete;
  ScopedFileOpener& operator=(const ScopedFileOpener&) = delete;

 private:
  FileOpener previous_;
};

// How Loader::Open opens the file its chunks are read from: the innermost ScopedFileOpener's
// opener on this thread (given dataset.location), else remote::OpenFile (a local path, or
// the remote object at the version the index was read from).
std::unique_ptr<io::RandomAccessFile> OpenChunkFile(const index::DatasetIndex& dataset);

}  // namespace h5feed::loader
