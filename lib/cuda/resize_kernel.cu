#include "cuda/resize_kernel.h"

#include <string>

#include "cuda/cuda_check.h"
#include "cuda/dynamic_shared.h"
#include "cuda/shared_geometry.h"
#include "cuda/store_element.h"
#include "h5feed/error.h"
#include "transform/augment.h"
#include "transform/normalize.h"
#include "transform/resize_taps.h"

namespace h5feed::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kTileRows = 16;
constexpr int kTileColumns = 32;
// The default per-block limit on any GPU is 48 KiB, static and dynamic together: the tap
// tables and the geometry take under 1 KiB of it.
constexpr size_t kMaxSharedBytes = (48 << 10) - 1024;

template <typename Stored>
__global__ void __launch_bounds__(kThreads) ResizeTiles(NormalizeLaunch p, ResizePlan plan) {
  H5FEED_DYNAMIC_SHARED(float, shared);
  __shared__ SharedGeometry geometry;
  __shared__ int32_t column_first[kTileColumns];
  __shared__ int32_t column_count[kTileColumns];
  __shared__ int32_t row_first[kTileRows];
  __shared__ int32_t row_count[kTileRows];
  float* column_weights = shared;                                             // kTileColumns x taps
  float* row_weights = column_weights + kTileColumns * plan.max_column_taps;  // kTileRows x taps
  float* filtered = row_weights + kTileRows * plan.max_row_taps;  // rows x kTileColumns x C

  const transform::AugmentParams& a = p.spec.augment;
  const int ho = a.out_height;
  const int wo = a.out_width;
  const int channels = static_cast<int>(p.channels);
  const int tiles_across = (wo + kTileColumns - 1) / kTileColumns;
  const int tiles = tiles_across * ((ho + kTileRows - 1) / kTileRows);
  const int64_t sample = blockIdx.x / tiles;
  const int tile = static_cast<int>(blockIdx.x % tiles);
  const int y0 = tile / tiles_across * kTileRows;
  const int x0 = tile % tiles_across * kTileColumns;
  const int tile_rows = min(kTileRows, ho - y0);
  const int tile_columns = min(kTileColumns, wo - x0);
  const int64_t source = p.order != nullptr ? p.order[sample] : sample;

  if (threadIdx.x == 0) {
    const int64_t row = a.random() ? p.indices[source] : 0;
    const transform::SampleTransform t = transform::DrawTransform(a, p.epoch, row, p.copy);
    geometry.Set(t);
    if (tile == 0 && p.labels != nullptr) p.labels_out[sample] = p.labels[source];
  }
  __syncthreads();
  const bool antialias = a.antialias;
  if (threadIdx.x < tile_columns) {
    const int i = threadIdx.x;
    const int x = x0 + i;
    const int resized_x = geometry.flip ? wo - 1 - x : x;  // the flip is an index change
    int count = 0;
    column_first[i] = transform::ComputeTaps(geometry.column_axis(), antialias, resized_x,
                                             column_weights + i * plan.max_column_taps, &count);
    column_count[i] = count;
  } else if (threadIdx.x >= kTileColumns && threadIdx.x < kTileColumns + tile_rows) {
    const int j = threadIdx.x - kTileColumns;
    int count = 0;
    row_first[j] = transform::ComputeTaps(geometry.row_axis(), antialias, y0 + j,
                                          row_weights + j * plan.max_row_taps, &count);
    row_count[j] = count;
  }
  __syncthreads();

  const uint8_t* image = p.images + source * (p.height * p.width * channels);
  const int line = kTileColumns * channels;  // a filtered row, in floats
  const int64_t plane = int64_t{ho} * wo;
  auto* out = static_cast<Stored*>(p.out);
  for (int group = 0; group < tile_rows; group += plan.group_rows) {
    const int group_end = min(tile_rows, group + plan.group_rows);
    const int first_row = row_first[group];
    int end_row = first_row;
    for (int j = group; j < group_end; ++j) end_row = max(end_row, row_first[j] + row_count[j]);
    if (end_row - first_row > plan.filtered_rows) __trap();  // PlanResize's bound, broken
    // Horizontal pass: the stored rows the group needs, at the tile's delivered columns.
    const int filtered_elements = (end_row - first_row) * tile_columns * channels;
    for (int e = threadIdx.x; e < filtered_elements; e += blockDim.x) {
      const int r = e / (tile_columns * channels);
      const int i = e / channels % tile_columns;
      const int c = e % channels;
      const uint8_t* pixel =
          image + (int64_t{first_row + r} * p.width + column_first[i]) * channels + c;
      const float* w = column_weights + i * plan.max_column_taps;
      float sum = 0.0f;
      for (int k = 0; k < column_count[i]; ++k) {
        sum = sum + w[k] * static_cast<float>(__ldg(pixel + k * channels));
      }
      filtered[r * line + i * channels + c] = sum;
    }
    __syncthreads();
    // Vertical pass, rounding, normalization and the one write of each delivered element.
    const int elements = (group_end - group) * tile_columns * channels;
    for (int e = threadIdx.x; e < elements; e += blockDim.x) {
      int j, i, c;
      if (p.spec.layout == Layout::kNCHW) {  // consecutive threads: consecutive x of a plane
        i = e % tile_columns;
        j = group + e / tile_columns % (group_end - group);
        c = e / (tile_columns * (group_end - group));
      } else {  // consecutive threads: (x, c) interleaved
        c = e % channels;
        i = e / channels % tile_columns;
        j = group + e / (channels * tile_columns);
      }
      const float* w = row_weights + j * plan.max_row_taps;
      const float* column = filtered + (row_first[j] - first_row) * line + i * channels + c;
      float sum = 0.0f;
      for (int k = 0; k < row_count[j]; ++k) sum = sum + w[k] * column[k * line];
      const float value = transform::NormalizePixel(
          transform::RoundToByte(sum), p.spec.normalize.scale[c], p.spec.normalize.bias[c]);
      const int64_t y = y0 + j;
      const int64_t x = x0 + i;
      const int64_t at = p.spec.layout == Layout::kNCHW
                             ? (sample * channels + c) * plane + y * wo + x
                             : ((sample * ho + y) * wo + x) * channels + c;
      out[at] = StoreElement<Stored>(value, p.spec.type);
    }
    __syncthreads();  // the next group overwrites `filtered`
  }
}

size_t SharedBytes(const ResizePlan& plan, int64_t channels) {
  return sizeof(float) *
         (static_cast<size_t>(kTileColumns) * plan.max_column_taps +
          static_cast<size_t>(kTileRows) * plan.max_row_taps +
          static_cast<size_t>(plan.filtered_rows) * kTileColumns * static_cast<size_t>(channels));
}

}  // namespace

ResizePlan PlanResize(int64_t height, int64_t width, int64_t channels,
                      const transform::OutputSpec& spec) {
  const transform::AugmentParams& a = spec.augment;
  // The largest window a box can have: the whole image (a random resized crop), or the fixed
  // one of the validation resize.
  transform::ResizeAxis rows{0, static_cast<int32_t>(height), a.out_height, 0, a.out_height};
  transform::ResizeAxis columns{0, static_cast<int32_t>(width), a.out_width, 0, a.out_width};
  if (a.crop == transform::CropKind::kResize) {
    rows.resized = a.resized_height;
    columns.resized = a.resized_width;
  }
  ResizePlan plan;
  plan.max_column_taps = transform::MaxTaps(columns, a.antialias);
  plan.max_row_taps = transform::MaxTaps(rows, a.antialias);
  // g delivered rows reach over at most (g - 1) x scale + taps + 1 stored rows (the +1 for
  // the float rounding of the tap starts).
  const double scale = static_cast<double>(rows.scale());
  for (int g = kTileRows; g >= 1; --g) {
    plan.group_rows = g;
    plan.filtered_rows = static_cast<int>((g - 1) * scale) + plan.max_row_taps + 2;
    plan.shared_bytes = SharedBytes(plan, channels);
    if (plan.shared_bytes <= kMaxSharedBytes) return plan;
  }
  throw Error(ErrorCode::kUnsupported,
              "GPU resize: a " + std::to_string(height) + "x" + std::to_string(width) +
                  " image shrunk to " + std::to_string(a.out_height) + "x" +
                  std::to_string(a.out_width) +
                  " needs more taps than a block's 48 KiB of shared memory holds; deliver a "
                  "larger size, store smaller images, or use the CPU path (cuda_device = -1)");
}

void LaunchResize(const NormalizeLaunch& launch, cudaStream_t stream) {
  if (launch.rows == 0) return;
  const ResizePlan plan = PlanResize(launch.height, launch.width, launch.channels, launch.spec);
  const transform::AugmentParams& a = launch.spec.augment;
  const int64_t tiles = int64_t{(a.out_width + kTileColumns - 1) / kTileColumns} *
                        ((a.out_height + kTileRows - 1) / kTileRows);
  const int64_t blocks = launch.rows * tiles;
  if (blocks > 0x7fffffff) {
    throw Error(ErrorCode::kUnsupported, "GPU resize: batch x tiles above 2^31 blocks");
  }
  // cudaLaunchKernelEx, not <<<...>>>: the tests' CUDA emulation compiles this file with the
  // host compiler, which has no such syntax (docs/gpu.md, "The CUDA emulation").
  const cudaLaunchConfig_t config = {
      dim3(static_cast<unsigned>(blocks)), dim3(kThreads), plan.shared_bytes, stream, nullptr, 0};
  Check(launch.spec.type == ElementType::kFloat32
            ? cudaLaunchKernelEx(&config, ResizeTiles<float>, launch, plan)
            : cudaLaunchKernelEx(&config, ResizeTiles<uint16_t>, launch, plan),
        "launching the resize kernel");
}

}  // namespace h5feed::cuda
