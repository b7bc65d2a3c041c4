#include "cuda/field_kernels.h"

#include <algorithm>

#include "cuda/cuda_check.h"
#include "cuda/shared_geometry.h"
#include "transform/sample_geometry.h"

namespace h5feed::cuda {
namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) GatherRows(GatherLaunch p) {
  const int64_t total = p.rows * p.row_bytes;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t b = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; b < total;
       b += stride) {
    const int64_t row = b / p.row_bytes;
    p.out[b] = p.in[p.order[row] * p.row_bytes + b % p.row_bytes];
  }
}

// One block per delivered sample: thread 0 draws its geometry (the draws of the image's
// kernels, keyed by the same dataset row, epoch and copy), then the block writes its pixels at
// consecutive addresses (coalesced). The stored pixels are read through the L1 cache: a mask is
// a few hundred KiB at most, read once per delivered pixel.
template <typename T>
__global__ void __launch_bounds__(kThreads) CropMasks(MaskLaunch p) {
  __shared__ SharedGeometry geometry;
  const int64_t sample = blockIdx.x;
  const int64_t source = p.order[sample];
  if (threadIdx.x == 0) {
    const int64_t row = p.augment.random() ? p.indices[source] : 0;
    const transform::SampleGeometry g =
        transform::GeometryOf(p.augment, transform::DrawTransform(p.augment, p.epoch, row, p.copy));
    geometry.Set(g);
  }
  __syncthreads();
  const transform::ResizeAxis rows = geometry.row_axis();
  const transform::ResizeAxis columns = geometry.column_axis();
  const bool flip = geometry.flip != 0;
  const int32_t ho = p.augment.out_height;
  const int32_t wo = p.augment.out_width;
  const T* stored =
      reinterpret_cast<const T*>(p.masks) + source * static_cast<int64_t>(p.height) * p.width;
  T* out = static_cast<T*>(p.out) + sample * static_cast<int64_t>(ho) * wo;
  for (int32_t at = static_cast<int32_t>(threadIdx.x); at < ho * wo; at += blockDim.x) {
    const int32_t y = at / wo;
    const int32_t x = at % wo;
    const int32_t sy = transform::NearestSource(rows, y);
    const int32_t sx = transform::NearestSource(columns, flip ? wo - 1 - x : x);
    out[at] = sy < 0 || sx < 0 ? T{p.fill} : stored[static_cast<int64_t>(sy) * p.width + sx];
  }
}

}  // namespace

void LaunchGatherRows(const GatherLaunch& launch, cudaStream_t stream) {
  const int64_t total = launch.rows * launch.row_bytes;
  if (total == 0) return;
  // A field is small beside the images (a few KiB a batch): a few blocks, each thread looping.
  const auto blocks = static_cast<unsigned>(std::min<int64_t>((total + 65535) / 65536, 1024));
  // cudaLaunchKernelEx, not <<<...>>>: the tests' CUDA emulation compiles this file with the
  // host compiler (docs/gpu.md, "The CUDA emulation").
  const cudaLaunchConfig_t config = {dim3(blocks), dim3(kThreads), 0, stream, nullptr, 0};
  Check(cudaLaunchKernelEx(&config, GatherRows, launch), "launching the field gather kernel");
}

void LaunchCropMasks(const MaskLaunch& launch, cudaStream_t stream) {
  if (launch.rows == 0) return;
  const cudaLaunchConfig_t config = {
      dim3(static_cast<unsigned>(launch.rows)), dim3(kThreads), 0, stream, nullptr, 0};
  Check(launch.element_bytes == 2 ? cudaLaunchKernelEx(&config, CropMasks<uint16_t>, launch)
                                  : cudaLaunchKernelEx(&config, CropMasks<uint8_t>, launch),
        "launching the mask kernel");
}

}  // namespace h5feed::cuda
