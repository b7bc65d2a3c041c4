#pragma once
// CUDA runtime results turned into h5feed::Error(kCuda), with what was being done and the
// runtime's own words. Host code only (includes cuda_runtime.h; never in a public header).

#include <cuda_runtime.h>

#include <string>

#include "h5feed/error.h"

namespace h5feed::cuda {

inline void Check(cudaError_t result, const char* what) {
  if (result != cudaSuccess) {
    cudaGetLastError();  // clear a non-sticky error so the next call reports its own
    // Assembled by hand, not with MakeError: nvcc compiles this header (make_error.h).
    throw Error(ErrorCode::kCuda, std::string("CUDA: ") + what +
                                      " failed: " + cudaGetErrorName(result) + " (" +
                                      cudaGetErrorString(result) + ")");
  }
}

}  // namespace h5feed::cuda
