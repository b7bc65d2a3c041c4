#pragma once
// A synthetic training step for gpu_bench: one thread that spins on the GPU's global timer for
// a set time on a stream (gpu_spin_kernel.cu), occupying the trainer's stream like a real step
// without depending on any model.

#include <cuda_runtime.h>

#include <cstdint>

namespace h5feed::bench {

void LaunchSpin(cudaStream_t stream, int64_t nanoseconds);

}  // namespace h5feed::bench
