#pragma once
// Device code of the GPU tests (test_kernels.cu), behind host functions.

#include <cuda_runtime.h>

#include <cstdint>

namespace h5feed::cuda::testing {

// Floats among all 2^32 bit patterns whose FloatToHalfBits / FloatToBFloat16Bits, run on the
// device, differ from CUDA's __float2half_rn / __float2bfloat16_rn (NaNs: both must be NaN).
// A real device only: the CUDA emulation has no instructions of CUDA's to compare with.
int64_t DeviceConversionMismatches();

// On `stream`, in `blocks` blocks of `threads`: spins for about `spin_ns` (a synthetic
// training step that reads late), then counts into *mismatches the elements of `elements` 16-
// or 32-bit words at `images` that are not `expected_bits`, and the `rows` labels that are not
// `expected_label`.
void LaunchCheckBatch(cudaStream_t stream, unsigned blocks, unsigned threads, const void* images,
                      int element_bytes, int64_t elements, uint32_t expected_bits,
                      const int64_t* labels, int64_t rows, int64_t expected_label, int64_t spin_ns,
                      unsigned long long* mismatches);

}  // namespace h5feed::cuda::testing
