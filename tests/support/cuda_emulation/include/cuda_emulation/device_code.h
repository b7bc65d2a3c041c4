#pragma once
// What CUDA device code spells beyond C++, for the host compiler that runs kernels in the
// emulation: each of a block's threads is a real thread (block_threads.h) with its own
// coordinates, __syncthreads is a std::barrier of the block's threads, and device memory is
// host memory.
//
// __shared__ variables declared in a kernel are function statics: one per kernel, used by the
// one block of that kernel the emulation runs at a time (a kernel's launches take turns). The
// dynamic shared memory is a buffer of the launch's size per block, filled with 0xff bytes
// (NaN as floats) before each block so a read of what the block did not write shows.

#include <atomic>
#include <cstdint>

#include "cuda_emulation/types.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
#define CUDART_CB

// The coordinates of the thread running device code; the emulation sets them for each thread
// of each block (outside a kernel they are zero).
inline thread_local uint3 threadIdx;
inline thread_local uint3 blockIdx;
inline thread_local dim3 blockDim;
inline thread_local dim3 gridDim;

namespace cuda_emulation {

void SyncThreads();
void* DynamicSharedMemory();  // the block's buffer of the launch's dynamicSmemBytes
[[noreturn]] void Trap();     // the kernel fails: cudaErrorLaunchFailure, sticky
long long Clock();            // nanoseconds of a steady clock

}  // namespace cuda_emulation

inline void __syncthreads() { cuda_emulation::SyncThreads(); }
[[noreturn]] inline void __trap() { cuda_emulation::Trap(); }
inline long long clock64() { return cuda_emulation::Clock(); }

// Read-only data through the texture cache: a plain read here.
template <typename T>
inline T __ldg(const T* address) {
  return *address;
}

// Device atomics are relaxed, as CUDA's are.
inline unsigned long long atomicAdd(unsigned long long* address, unsigned long long value) {
  return std::atomic_ref<unsigned long long>(*address).fetch_add(value, std::memory_order_relaxed);
}

// CUDA's min and max, overloaded in the global namespace for each arithmetic type.
#define CUDA_EMULATION_MIN_MAX(T)                  \
  inline T min(T a, T b) { return b < a ? b : a; } \
  inline T max(T a, T b) { return a < b ? b : a; }
CUDA_EMULATION_MIN_MAX(int)
CUDA_EMULATION_MIN_MAX(unsigned int)
CUDA_EMULATION_MIN_MAX(long)
CUDA_EMULATION_MIN_MAX(unsigned long)
CUDA_EMULATION_MIN_MAX(long long)
CUDA_EMULATION_MIN_MAX(unsigned long long)
CUDA_EMULATION_MIN_MAX(float)
CUDA_EMULATION_MIN_MAX(double)
#undef CUDA_EMULATION_MIN_MAX
