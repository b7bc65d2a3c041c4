#include "test_kernels.h"

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

#include "cuda/cuda_check.h"
#include "transform/float_convert.h"

namespace h5feed::cuda::testing {
namespace {

#if defined(__CUDACC__)  // CUDA's own conversions: there are none in the emulation
__global__ void CompareConversions(uint64_t begin, unsigned long long* mismatches) {
  const uint64_t bits = begin + blockIdx.x * uint64_t{blockDim.x} + threadIdx.x;
  const float f = __uint_as_float(static_cast<uint32_t>(bits));
  const uint16_t half = transform::FloatToHalfBits(f);
  const uint16_t cuda_half = __half_as_ushort(__float2half_rn(f));
  const uint16_t bf16 = transform::FloatToBFloat16Bits(f);
  const uint16_t cuda_bf16 = __bfloat16_as_ushort(__float2bfloat16_rn(f));
  bool wrong;
  if (f != f) {
    wrong = (half & 0x7fff) <= 0x7c00 || (cuda_half & 0x7fff) <= 0x7c00 ||
            (bf16 & 0x7fff) <= 0x7f80 || (cuda_bf16 & 0x7fff) <= 0x7f80;
  } else {
    wrong = half != cuda_half || bf16 != cuda_bf16;
  }
  if (wrong) atomicAdd(mismatches, 1ull);
}
#endif

__global__ void CheckBatch(const void* images, int element_bytes, int64_t elements,
                           uint32_t expected_bits, const int64_t* labels, int64_t rows,
                           int64_t expected_label, int64_t spin_ns,
                           unsigned long long* mismatches) {
  if (threadIdx.x == 0) {
    // The trainer's "step": every block reads only after it, so the buffer must stay intact
    // for its whole length.
    const uint64_t start = clock64();
    while (clock64() - start < static_cast<uint64_t>(spin_ns) * 2) {}
  }
  __syncthreads();
  unsigned long long wrong = 0;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < elements;
       i += int64_t{gridDim.x} * blockDim.x) {
    const uint32_t value = element_bytes == 4 ? static_cast<const uint32_t*>(images)[i]
                                              : static_cast<const uint16_t*>(images)[i];
    wrong += value != expected_bits;
  }
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < rows;
       i += int64_t{gridDim.x} * blockDim.x) {
    wrong += labels[i] != expected_label;
  }
  if (wrong) atomicAdd(mismatches, wrong);
}

}  // namespace

#if defined(__CUDACC__)
int64_t DeviceConversionMismatches() {
  unsigned long long* count = nullptr;
  Check(cudaMalloc(&count, sizeof *count), "cudaMalloc");
  Check(cudaMemset(count, 0, sizeof *count), "cudaMemset");
  constexpr uint64_t kPerLaunch = uint64_t{1} << 30;
  for (uint64_t begin = 0; begin < (uint64_t{1} << 32); begin += kPerLaunch) {
    CompareConversions<<<kPerLaunch / 256, 256>>>(begin, count);
    Check(cudaGetLastError(), "launching CompareConversions");
  }
  unsigned long long result = 0;
  Check(cudaMemcpy(&result, count, sizeof result, cudaMemcpyDeviceToHost), "cudaMemcpy");
  cudaFree(count);
  return static_cast<int64_t>(result);
}
#endif

void LaunchCheckBatch(cudaStream_t stream, unsigned blocks, unsigned threads, const void* images,
                      int element_bytes, int64_t elements, uint32_t expected_bits,
                      const int64_t* labels, int64_t rows, int64_t expected_label, int64_t spin_ns,
                      unsigned long long* mismatches) {
  const cudaLaunchConfig_t config = {dim3(blocks), dim3(threads), 0, stream, nullptr, 0};
  Check(cudaLaunchKernelEx(&config, CheckBatch, images, element_bytes, elements, expected_bits,
                           labels, rows, expected_label, spin_ns, mismatches),
        "launching CheckBatch");
}

}  // namespace h5feed::cuda::testing
