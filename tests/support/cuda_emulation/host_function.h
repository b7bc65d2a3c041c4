#pragma once
// Whether the calling thread is inside a host function (cudaLaunchHostFunc): CUDA forbids
// runtime calls there, and the emulation refuses them (cudaErrorNotPermitted).

namespace cuda_emulation {

inline thread_local bool in_host_function = false;

inline bool InHostFunction() { return in_host_function; }

struct HostFunctionScope {
  HostFunctionScope() { in_host_function = true; }
  ~HostFunctionScope() { in_host_function = false; }
  HostFunctionScope(const HostFunctionScope&) = delete;
  HostFunctionScope& operator=(const HostFunctionScope&) = delete;
};

}  // namespace cuda_emulation
