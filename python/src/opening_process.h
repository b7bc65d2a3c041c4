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
// Thread-safety: immutable after construction.

#include <unistd.h>

#include <memory>
#include <utility>

#include "make_error.h"

namespace h5feed::python {

class OpeningProcess {
 public:
  OpeningProcess() : pid_(::getpid()) {}

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
  const pid_t pid_;
};

}  // namespace h5feed::python
