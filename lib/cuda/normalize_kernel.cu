#include "cuda/normalize_kernel.h"

#include <string>

#include "cuda/cuda_check.h"
#include "cuda/dynamic_shared.h"
#include "cuda/resize_kernel.h"
#include "cuda/store_element.h"
#include "h5feed/error.h"
#include "transform/augment.h"
#include "transform/normalize.h"

namespace h5feed::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kRowsPerBlock = 4;
constexpr size_t kMaxSharedBytes = 48 << 10;  // the default per-block limit, any GPU

// Stored is float (float32) or uint16_t (the bits of float16 / bfloat16). One block per
// (sample, group of kRowsPerBlock delivered rows): the draws and the row's addressing are
// computed once per group, and each block has enough work (4 x 672 elements for 224 x 224 RGB)
// that scheduling blocks is not what limits the kernel.
template <typename Stored>
__global__ void __launch_bounds__(kThreads) NormalizeRows(NormalizeLaunch p, int row_groups) {
  H5FEED_DYNAMIC_SHARED(uint4, shared_words);
  const auto* row_bytes = reinterpret_cast<const uint8_t*>(shared_words);
  const transform::AugmentParams& a = p.spec.augment;
  const int ho = a.out_height;
  const int wo = a.out_width;
  const int channels = static_cast<int>(p.channels);
  const int64_t sample = blockIdx.x / row_groups;
  const int first_row = static_cast<int>(blockIdx.x % row_groups) * kRowsPerBlock;
  const int64_t source = p.order != nullptr ? p.order[sample] : sample;
  const transform::SampleTransform t =
      a.random() ? transform::DrawTransform(a, p.epoch, p.indices[source], p.copy)
                 : transform::SampleTransform{};
  if (first_row == 0 && threadIdx.x == 0 && p.labels != nullptr) {
    p.labels_out[sample] = p.labels[source];
  }
  const uint8_t* image = p.images + source * (p.height * p.width * channels);
  auto* out = static_cast<Stored*>(p.out);

  for (int y = first_row; y < min(ho, first_row + kRowsPerBlock); ++y) {
    const int sy = y + t.shift_y;
    const bool row_inside = sy >= 0 && sy < ho;
    int skew = 0;     // where the segment starts inside the first 16-byte word
    __syncthreads();  // the previous row's readers are done with shared memory
    if (row_inside) {
      const uint8_t* segment =
          image + ((int64_t{a.crop_top} + sy) * p.width + a.crop_left) * channels;
      const auto address = reinterpret_cast<uintptr_t>(segment);
      skew = static_cast<int>(address & 15);
      const auto* words = reinterpret_cast<const uint4*>(address - skew);
      const int word_count = (skew + wo * channels + 15) / 16;
      for (int i = threadIdx.x; i < word_count; i += blockDim.x) shared_words[i] = words[i];
    }
    __syncthreads();

    const auto pixel_at = [&](int c, int x) -> float {
      const int sx = transform::SourceColumn(a, t, x);
      const uint8_t pixel =
          row_inside && sx >= 0 && sx < wo ? row_bytes[skew + sx * channels + c] : uint8_t{0};
      return transform::NormalizePixel(pixel, p.spec.normalize.scale[c], p.spec.normalize.bias[c]);
    };
    if (p.spec.layout == Layout::kNCHW) {
      // One channel plane's row after another: consecutive threads, consecutive x.
      const int64_t plane = int64_t{ho} * wo;
      for (int c = 0; c < channels; ++c) {
        Stored* row = out + (sample * channels + c) * plane + int64_t{y} * wo;
        for (int x = threadIdx.x; x < wo; x += blockDim.x) {
          row[x] = StoreElement<Stored>(pixel_at(c, x), p.spec.type);
        }
      }
    } else {
      // (x, c) interleaved: the row is wo x channels consecutive elements.
      const int elements = wo * channels;
      Stored* row = out + (sample * ho + y) * int64_t{elements};
      for (int e = threadIdx.x; e < elements; e += blockDim.x) {
        row[e] = StoreElement<Stored>(pixel_at(e % channels, e / channels), p.spec.type);
      }
    }
  }
}

}  // namespace

size_t NormalizeSharedBytes(int64_t channels, const transform::OutputSpec& spec) {
  return (static_cast<size_t>(spec.augment.out_width) * static_cast<size_t>(channels) + 15 + 16) /
         16 * 16;
}

void LaunchNormalize(const NormalizeLaunch& launch, cudaStream_t stream) {
  if (launch.rows == 0) return;
  if (launch.spec.augment.resizes()) {
    LaunchResize(launch, stream);
    return;
  }
  const size_t shared = NormalizeSharedBytes(launch.channels, launch.spec);
  if (shared > kMaxSharedBytes) {
    throw Error(ErrorCode::kUnsupported,
                "GPU normalize: a delivered row of " +
                    std::to_string(launch.spec.augment.out_width) + " x " +
                    std::to_string(launch.channels) +
                    " bytes does not fit a block's 48 KiB of shared memory; crop the images "
                    "(output.augment.center_crop) or use the CPU path (cuda_device = -1)");
  }
  const int row_groups = (launch.spec.augment.out_height + kRowsPerBlock - 1) / kRowsPerBlock;
  const int64_t blocks = launch.rows * row_groups;
  if (blocks > 0x7fffffff) {
    throw Error(ErrorCode::kUnsupported, "GPU normalize: batch x height / 4 above 2^31 blocks");
  }
  // cudaLaunchKernelEx, not <<<...>>>: the tests' CUDA emulation compiles this file with the
  // host compiler, which has no such syntax (docs/gpu.md, "The CUDA emulation").
  const cudaLaunchConfig_t config = {
      dim3(static_cast<unsigned>(blocks)), dim3(kThreads), shared, stream, nullptr, 0};
  Check(launch.spec.type == ElementType::kFloat32
            ? cudaLaunchKernelEx(&config, NormalizeRows<float>, launch, row_groups)
            : cudaLaunchKernelEx(&config, NormalizeRows<uint16_t>, launch, row_groups),
        "launching the normalize kernel");
}

}  // namespace h5feed::cuda
