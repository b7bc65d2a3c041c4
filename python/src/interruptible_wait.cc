#include "interruptible_wait.h"

#include <pybind11/pybind11.h>

namespace h5feed::python {

void WaitInterruptibly(const std::function<bool(std::chrono::milliseconds)>& wait_slice) {
  while (true) {
    bool done = false;
    {
      pybind11::gil_scoped_release without_gil;
      done = wait_slice(kWaitSlice);
    }
    if (done) return;
    if (PyErr_CheckSignals() != 0) throw pybind11::error_already_set();
  }
}

}  // namespace h5feed::python
