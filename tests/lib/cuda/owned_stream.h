#pragma once
// A CUDA stream a GPU test plays the trainer with, destroyed at scope end.

#include <cuda_runtime.h>

#include "cuda/cuda_check.h"

namespace h5feed::cuda::testing {

struct OwnedStream {
  cudaStream_t stream = nullptr;
  OwnedStream() { Check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream"); }
  ~OwnedStream() { cudaStreamDestroy(stream); }
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
};

}  // namespace h5feed::cuda::testing
