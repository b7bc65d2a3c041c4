#pragma once
// Kernel launches: CUDA's type-safe cudaLaunchKernelEx (cuda_runtime.h's C++ overload), which
// h5feed's kernels are launched with because a host compiler has no <<<...>>> syntax.

#include <functional>
#include <tuple>
#include <utility>

#include "cuda_emulation/types.h"

namespace cuda_emulation {

// Enqueues a kernel on config.stream: `body` runs on each thread of each block of the grid.
// `kernel` names the kernel (its launches take turns: its __shared__ variables are statics).
cudaError_t Launch(const cudaLaunchConfig_t& config, const void* kernel,
                   std::function<void()> body);

}  // namespace cuda_emulation

// The arguments are converted to the kernel's parameter types and copied at the launch, as
// CUDA copies them; every thread of the grid then gets its own copy, as a by-value parameter.
template <typename... Params, typename... Args>
cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t* config, void (*kernel)(Params...),
                               Args&&... args) {
  return cuda_emulation::Launch(
      *config, reinterpret_cast<const void*>(kernel),
      [kernel, arguments = std::tuple<Params...>(std::forward<Args>(args)...)] {
        std::apply(kernel, arguments);
      });
}
