#pragma once
// The Loader's warnings (LoaderOptions::on_warning) on their way to Python's `warnings`
// module. They come from Open's thread and from the loader's workers (a skipped corrupt
// chunk), and a worker must not take the GIL: the trainer's thread may hold it while it waits
// for that worker (joining it in SetEpoch or the destructor). So they are kept here and
// h5feed.Loader issues them with warnings.warn after Open and after each batch.
//
// Thread-safety: Add from any thread, Take from the Python thread; a mutex guards the list.

#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace h5feed::python {

class PendingWarnings {
 public:
  void Add(const std::string& warning) {
    std::lock_guard<std::mutex> lock(mutex_);
    warnings_.push_back(warning);
  }

  // The warnings added since the last Take, oldest first.
  std::vector<std::string> Take() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(warnings_, {});
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> warnings_;  // guarded by mutex_
};

}  // namespace h5feed::python
