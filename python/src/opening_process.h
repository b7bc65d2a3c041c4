#pragma once
// The process a Loader was opened in, so that a forked child neither uses nor destroys it.
//
// fork() copies the parent's memory but only the thread that called it: a child (a torch
// DataLoader worker, a multiprocessing "fork" process, os.fork) holds the parent's Loader with
// none of its reading threads, and with any lock one of them held at that instant still locked.
// Every wait for those threads would last forever (a batch awaited, SetEpoch's or the
// destructor's join), and a join of a thread that was running in the parent is undefined
// (glibc waits on it forever; a std::thread left joinable ends the process). So in a child
// the NativeLoader refuses every call that reaches the loader's threads, and the loader and
// the batches the child still holds are abandoned there (their memory left to the process's
// exit) rather than destroyed.
//
// A Loader is not opened at all in a child forked while one was open in the parent: the child
// inherits the thread pool (oneTBB's) in whatever state its workers left it, possibly in the
// middle of its work, where a Loader crashed now and then. Opening one is refused instead
// (Error(kUnsupported)). A child forked after the parent's Loaders were all destroyed
// opens its own as any process does.
//
// Thread-safety: immutable after construction; the count of open Loaders behind the
// constructor and destructor is guarded.

#include <unistd.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>

#include "make_error.h"

namespace h5feed::python {

class OpeningProcess {
 public:
  // Throws Error(kUnsupported) in a child forked while a Loader was open in its parent.
  OpeningProcess() : pid_(::getpid()) {
    OpenLoaders& open = Open();
    const std::lock_guard lock(open.mutex);
    if (open.count > 0 && open.pid != pid_) {
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
    ++open.count;
  }
  // In a forked child the parent's Loaders stay counted: the thread pool stays the parent's.
  ~OpeningProcess() {
    OpenLoaders& open = Open();
    const std::lock_guard lock(open.mutex);
    if (!IsForkedChild()) --open.count;
  }
  OpeningProcess(const OpeningProcess&) = delete;
  OpeningProcess& operator=(const OpeningProcess&) = delete;

  bool IsForkedChild() const { return ::getpid() != pid_; }

  // Throws Error(kUnsupported) in a forked child, saying what to do instead.
  void RefuseForkedChild() const {
    if (!IsForkedChild()) return;
    throw MakeError(
        ErrorCode::kUnsupported,
        "h5feed.Loader: this loader was opened in process {} and is used in process {}, a "
        "child forked from it (a DataLoader worker, a multiprocessing 'fork' process): its "
        "reading threads did not survive the fork, so it cannot deliver batches here. Iterate "
        "h5feed.Loader in the main process without DataLoader workers (it reads on threads of "
        "its own), or open a Loader in the process that iterates it, started by 'spawn' "
        "(DataLoader(multiprocessing_context='spawn'), the Loader made in "
        "IterableDataset.__iter__): a child forked while a Loader reads inherits its thread "
        "pool mid-work",
        pid_, ::getpid());
  }

  // Leaves `owned` undestroyed: what a forked child does with the parent's loader and batches
  // (their destructors would wait for threads the child does not have).
  template <typename T>
  static void Abandon(T& owned) {
    static_cast<void>(new T(std::move(owned)));  // never deleted, on purpose
  }

 private:
  // The Loaders open in process `pid` (copied by fork() into its children with the rest).
  struct OpenLoaders {
    std::mutex mutex;
    int64_t count = 0;
    pid_t pid = 0;
  };
  static OpenLoaders& Open() {
    static OpenLoaders open;
    return open;
  }

  const pid_t pid_;
};

}  // namespace h5feed::python
