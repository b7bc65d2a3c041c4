#include "gpu_spin_kernel.h"

#include "cuda/cuda_check.h"

namespace h5feed::bench {
namespace {

__device__ uint64_t GlobalTimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void Spin(int64_t nanoseconds) {
  const uint64_t start = GlobalTimer();
  while (GlobalTimer() - start < static_cast<uint64_t>(nanoseconds)) {}
}

}  // namespace

void LaunchSpin(cudaStream_t stream, int64_t nanoseconds) {
  Spin<<<1, 1, 0, stream>>>(nanoseconds);
  cuda::Check(cudaGetLastError(), "launching the spin kernel");
}

}  // namespace h5feed::bench
