#pragma once
// Python objects that native threads read without the GIL: a reference is taken when one is
// handed over (GIL held) and kept by a shared owner whose last copy may be dropped on any
// thread, which cannot touch the object's reference count; the reference waits here until a
// thread holding the GIL gives it back (Drain). h5feed.write hands each sample's image bytes
// over so, without copying them (write_binding.cc).
//
// Thread-safety: Hold and Drain need the GIL; an owner may be dropped on any thread.

#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <vector>

namespace h5feed::python {

class DeferredRelease {
 public:
  DeferredRelease() = default;
  DeferredRelease(const DeferredRelease&) = delete;
  DeferredRelease& operator=(const DeferredRelease&) = delete;
  // Every owner must be gone and Drain called by then (an object left would leak).
  ~DeferredRelease() = default;

  // A new reference to `object`, owned by the pointer returned; it must not outlive this.
  std::shared_ptr<const void> Hold(const pybind11::handle& object);

  // Gives back the references of the owners dropped since the last call.
  void Drain();

 private:
  std::mutex mutex_;
  std::vector<PyObject*> dropped_;  // guarded by mutex_
};

}  // namespace h5feed::python
