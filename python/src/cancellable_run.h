#pragma once
// Running a long library call (a conversion, a merge, a Loader's open) from Python so that
// Ctrl-C stops it:
// the call runs on a worker thread while the calling thread waits interruptibly
// (interruptible_wait.h); on Ctrl-C the call's cancel flag is set and the worker joined before
// KeyboardInterrupt propagates, so the call has cleaned up (its temporary file is gone) by then.

#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <utility>

#include "interruptible_wait.h"

namespace h5feed::python {

// Returns what `work(cancel)` returns, or rethrows what it throws (an h5feed::Error). `work`
// must return soon after `cancel` is set (the library's kCancelled, which is then not what is
// raised: KeyboardInterrupt is). `cancel` is the caller's: set on Ctrl-C, before the worker is
// joined (a flag the library reads through its options, as RemoteOptions::cancel). Called with
// the GIL held; `work` runs without it.
template <typename Work>
auto RunCancellable(std::atomic<bool>& cancel, Work&& work) {
  using Result = decltype(work(std::declval<const std::atomic<bool>&>()));
  std::packaged_task<Result()> task([&] { return work(cancel); });
  std::future<Result> result = task.get_future();
  std::thread worker(std::move(task));
  try {
    WaitInterruptibly([&](std::chrono::milliseconds slice) {
      return result.wait_for(slice) == std::future_status::ready;
    });
  } catch (...) {
    cancel.store(true);
    {
      pybind11::gil_scoped_release without_gil;
      worker.join();
    }
    throw;
  }
  worker.join();
  return result.get();
}

// The same with a flag of its own.
template <typename Work>
auto RunCancellable(Work&& work) {
  std::atomic<bool> cancel{false};
  return RunCancellable(cancel, std::forward<Work>(work));
}

}  // namespace h5feed::python
