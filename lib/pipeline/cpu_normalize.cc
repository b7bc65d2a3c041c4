// Compiled with -ffp-contract=off (see normalize.h: the multiply and the add must stay two
// rounded operations for the CPU and the GPU to agree bit for bit).
#include "pipeline/cpu_normalize.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <string>

#include "h5feed/error.h"

namespace h5feed::pipeline {
namespace {

// One channel plane of rows [row_begin, row_end): strided loads (every C-th byte),
// contiguous stores, which GCC vectorises for a compile-time C.
template <int kChannels>
void NormalizeRowsFixed(const uint8_t* image, int64_t width, int64_t row_begin,
                        int64_t row_end, int64_t plane, const NormalizeParams& params,
                        float* dest) {
  for (int c = 0; c < kChannels; ++c) {
    const float scale = params.scale[c];
    const float bias = params.bias[c];
    for (int64_t h = row_begin; h < row_end; ++h) {
      const uint8_t* in = image + h * width * kChannels + c;
      float* out = dest + c * plane + h * width;
      for (int64_t w = 0; w < width; ++w) out[w] = NormalizePixel(in[w * kChannels], scale, bias);
    }
  }
}

}  // namespace

void NormalizeImageRows(const uint8_t* image, const ImageShape& shape, int64_t row_begin,
                        int64_t row_end, const NormalizeParams& params, float* dest) {
  const int64_t plane = shape.height * shape.width;
  const int64_t w = shape.width;
  switch (shape.channels) {
    case 1: return NormalizeRowsFixed<1>(image, w, row_begin, row_end, plane, params, dest);
    case 2: return NormalizeRowsFixed<2>(image, w, row_begin, row_end, plane, params, dest);
    case 3: return NormalizeRowsFixed<3>(image, w, row_begin, row_end, plane, params, dest);
    case 4: return NormalizeRowsFixed<4>(image, w, row_begin, row_end, plane, params, dest);
    default:
      throw Error(ErrorCode::kUnsupported,
                  "normalize: " + std::to_string(shape.channels) + " channels (1 to 4 handled)");
  }
}

void NormalizeBatch(std::span<const uint8_t> src, const ImageShape& shape, int64_t images,
                    const NormalizeParams& params, std::span<float> dest) {
  const int64_t image_bytes = shape.bytes();
  if (params.channels != shape.channels) {
    throw Error(ErrorCode::kInvalidArgument,
                "normalize: parameters for " + std::to_string(params.channels) +
                    " channels applied to images of " + std::to_string(shape.channels));
  }
  if (images < 0 || static_cast<int64_t>(src.size()) < images * image_bytes ||
      static_cast<int64_t>(dest.size()) < images * image_bytes) {
    throw Error(ErrorCode::kInternal, "normalize: buffers too small for " +
                                          std::to_string(images) + " images");
  }
  if (images == 0 || image_bytes == 0) return;
  const int64_t height = shape.height;
  // About 32 KiB of pixels per task: small enough to balance 2-64 workers on one 224x224
  // image, large enough that scheduling (~1 us a task) stays under 1% of the work.
  const int64_t row_bytes = shape.width * shape.channels;
  const int64_t grain = std::max<int64_t>(1, (int64_t{32} << 10) / std::max<int64_t>(1, row_bytes));
  tbb::parallel_for(
      tbb::blocked_range<int64_t>(0, images * height, static_cast<size_t>(grain)),
      [&](const tbb::blocked_range<int64_t>& range) {
        int64_t r = range.begin();
        while (r < range.end()) {
          const int64_t image = r / height;
          const int64_t row_begin = r % height;
          const int64_t row_end = std::min(height, row_begin + (range.end() - r));
          NormalizeImageRows(src.data() + image * image_bytes, shape, row_begin, row_end,
                             params, dest.data() + image * image_bytes);
          r += row_end - row_begin;
        }
      });
}

}  // namespace h5feed::pipeline
