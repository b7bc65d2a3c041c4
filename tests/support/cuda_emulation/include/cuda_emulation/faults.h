#pragma once
// The emulated device's fault seam, for tests of what h5feed does when the GPU fails: a copy or
// a kernel that fails on its stream, as a bad address or a kernel fault does on a real device.
//
// Not thread-safe against itself (the test's thread calls it); the streams read it with
// relaxed atomics, which order nothing between them (ThreadSanitizer still sees their races).

#include "cuda_emulation/types.h"

namespace cuda_emulation {

enum class Work { kCopy, kKernel };  // a copy: cudaMemcpy*, cudaMemset*

// The nth copy or kernel that a stream runs from now on (1: the next) fails with `error`
// instead of running. The error is sticky, as a device fault is: every later runtime call
// returns it and nothing more runs on any stream (docs of runtime_api.h).
void FailNth(Work work, int nth, cudaError_t error);

// Clears the device's sticky error and any fault armed: a fresh device for the next test (on a
// real GPU only a new process is). Call it with no stream running.
void ResetDevice();

}  // namespace cuda_emulation
