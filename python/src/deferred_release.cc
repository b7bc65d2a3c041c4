#include "deferred_release.h"

#include <utility>

namespace h5feed::python {

std::shared_ptr<const void> DeferredRelease::Hold(const pybind11::handle& object) {
  PyObject* held = object.inc_ref().ptr();
  return std::shared_ptr<const void>(held, [this](const void* dropped) {
    std::lock_guard lock(mutex_);
    dropped_.push_back(static_cast<PyObject*>(const_cast<void*>(dropped)));
  });
}

void DeferredRelease::Drain() {
  std::vector<PyObject*> dropped;
  {
    std::lock_guard lock(mutex_);
    dropped.swap(dropped_);
  }
  for (PyObject* object : dropped) Py_DECREF(object);
}

}  // namespace h5feed::python
