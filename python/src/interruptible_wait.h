#pragma once
// Waiting in native code without making Python deaf to Ctrl-C.
//
// Python runs its signal handlers (KeyboardInterrupt) only on the main thread, between
// bytecodes: a thread blocked in C++ with the GIL released never gets to them. So every long
// wait of the module is cut into slices of kWaitSlice; between two slices the GIL is taken
// back and PyErr_CheckSignals runs the handlers. 100 ms keeps Ctrl-C prompt while costing
// nothing measurable (a slice that finds its work ready returns at once).

#include <chrono>
#include <functional>

namespace h5feed::python {

inline constexpr std::chrono::milliseconds kWaitSlice{100};

// Calls `wait_slice(kWaitSlice)` with the GIL released until it returns true. Called with the
// GIL held. If a signal handler raises between slices (Ctrl-C: KeyboardInterrupt), throws
// pybind11::error_already_set carrying that exception. Exceptions from `wait_slice` propagate
// (with the GIL held again).
void WaitInterruptibly(const std::function<bool(std::chrono::milliseconds)>& wait_slice);

}  // namespace h5feed::python
