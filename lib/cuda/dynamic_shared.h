#pragma once
// H5FEED_DYNAMIC_SHARED(type, name); declares `name`, a kernel's dynamic shared memory (the
// launch's dynamicSmemBytes) as an array of `type`, 16-byte aligned. A macro because the two
// compilers of the kernels spell it differently: nvcc gets the declaration CUDA defines (so the
// kernels compile to the PTX they did when they wrote it themselves); the host compiler, which
// runs the same kernel files in the tests' CUDA emulation (tests/support/cuda_emulation/,
// docs/gpu.md), has no __shared__ storage and takes the block's buffer from the emulation.

#include <cuda_runtime.h>

#if defined(__CUDACC__)
#define H5FEED_DYNAMIC_SHARED(type, name) extern __shared__ type name[]
#else
#define H5FEED_DYNAMIC_SHARED(type, name) \
  type* const name = static_cast<type*>(cuda_emulation::DynamicSharedMemory())
#endif
