#pragma once
// The Loaders open in this process, counted so that a child forked while any was open opens
// none of its own: the child inherits the thread pool (oneTBB's) in whatever state the
// parent's workers left it, possibly in the middle of their work, where a Loader crashed now
// and then (test_fork.py). Opening one there is refused instead (Error(kUnsupported)). A child
// forked after the parent's Loaders were all destroyed opens its own as any process does.
// (What a child may do with the parent's Loader itself: opening_process.h.)
//
// Thread-safety: constructed and destroyed from any thread; the count is guarded.

#include <unistd.h>

#include <cstdint>
#include <mutex>

#include "make_error.h"

namespace h5feed::python {

// One open Loader, counted for its lifetime in the process that made it.
class OpenLoaderCount {
 public:
  // Throws Error(kUnsupported) in a child forked while a Loader was open in its parent.
  OpenLoaderCount() : pid_(::getpid()) {
    Count& open = Open();
    const std::lock_guard lock(open.mutex);
    if (open.loaders > 0 && open.pid != pid_) {
      throw MakeError(
          ErrorCode::kUnsupported,
          "h5feed.Loader: this process ({}) was forked from process {} while a Loader was open "
          "there: the Loader's thread pool (oneTBB's) was copied in the middle of its work, "
          "without its threads, and a Loader opened here could crash. Start the process that "
          "reads with 'spawn' (DataLoader(multiprocessing_context='spawn'), the Loader made in "
          "IterableDataset.__iter__), or fork before opening a Loader in the parent",
          pid_, open.pid);
    }
    open.pid = pid_;
    ++open.loaders;
  }
  // In a forked child the parent's Loaders stay counted: the thread pool stays the parent's.
  ~OpenLoaderCount() {
    Count& open = Open();
    const std::lock_guard lock(open.mutex);
    if (::getpid() == pid_) --open.loaders;
  }
  OpenLoaderCount(const OpenLoaderCount&) = delete;
  OpenLoaderCount& operator=(const OpenLoaderCount&) = delete;

 private:
  // The Loaders open in process `pid` (copied by fork() into its children with the rest).
  struct Count {
    std::mutex mutex;
    int64_t loaders = 0;
    pid_t pid = 0;
  };
  static Count& Open() {
    static Count count;
    return count;
  }

  const pid_t pid_;
};

}  // namespace h5feed::python
