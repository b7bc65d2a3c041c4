// Compiled with -ffp-contract=off: every product and sum is rounded on its own, as on the GPU.
#include "transform/resize_sample.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "make_error.h"
#include "transform/resize_avx2.h"
#include "transform/resize_taps.h"

namespace h5feed::transform {
namespace {

void GrowTo(std::vector<float>& buffer, int64_t size) {
  if (buffer.size() < static_cast<size_t>(size)) buffer.resize(static_cast<size_t>(size));
}

// One axis's taps for a range of delivered pixels, padded to the same count (`taps`) for every
// pixel so the filtering loops have a fixed trip count. Padding taps have weight 0: adding
// 0 x pixel (+0) to a sum of non-negative terms changes no bit, so the padded sum equals the
// exact-count sum the GPU computes. A padded pixel's first tap moves left (its weights right)
// where the window would end before first + taps.
struct AxisTaps {
  int taps = 0;
  std::vector<int32_t> first;  // stored index of each pixel's first tap
  std::vector<float> weights;  // taps per pixel

  void Compute(const ResizeAxis& axis, bool antialias, int64_t begin, int64_t end) {
    taps = MaxTaps(axis, antialias);
    const auto pixels = static_cast<size_t>(end - begin);
    first.resize(pixels);
    weights.assign(pixels * static_cast<size_t>(taps), 0.0f);
    const int32_t window_end = axis.src_begin + axis.src_size;
    for (size_t p = 0; p < pixels; ++p) {
      float* w = weights.data() + p * static_cast<size_t>(taps);
      int count = 0;
      const auto pixel = static_cast<int32_t>(begin + static_cast<int64_t>(p));
      int32_t start = ComputeTaps(axis, antialias, pixel, w, &count);
      if (count > taps) throw Error(ErrorCode::kInternal, "resize: more taps than MaxTaps");
      const int32_t shift = std::max(0, start + taps - window_end);
      if (shift > 0) {
        std::copy_backward(w, w + count, w + count + shift);
        std::fill(w, w + shift, 0.0f);
        start -= shift;
      }
      first[p] = start;
    }
  }
};

// Per-thread scratch: the tap tables, one stored row as floats and the horizontally filtered
// rows.
struct Scratch {
  AxisTaps columns;
  AxisTaps rows;
  std::vector<float> column_pairs;  // PairWeightsAvx2 of `columns`
  std::vector<float> source;        // the stored columns the taps read, of one row, x C
  std::vector<float> filtered;      // stored rows x delivered columns x C
};

Scratch& ThreadScratch() {
  thread_local Scratch scratch;
  return scratch;
}

ResizeKernels DetectKernels() {
#if defined(H5FEED_RESIZE_AVX2)
  if (CpuHasAvx2()) return ResizeKernels::kAvx2;
#endif
  return ResizeKernels::kBaseline;
}

// The kernels every thread runs: the CPU's best at first use, switched by UseResizeKernels.
std::atomic<ResizeKernels>& KernelsChoice() {
  static std::atomic<ResizeKernels> choice{DetectKernels()};
  return choice;
}

// Delivered column x of one stored row, every channel: sum_k w[k] x pixel[k] per channel.
template <int kChannels>
void FilterPixelScalar(const float* pixel, const float* w, int taps, float* out) {
  for (int c = 0; c < kChannels; ++c) {
    float sum = 0.0f;
    for (int k = 0; k < taps; ++k) sum = sum + w[k] * pixel[k * kChannels + c];
    out[c] = sum;
  }
}

// The same for 3 or 4 channels with the channels in the lanes of one SSE register: per lane
// the same multiplies and adds in the same order as FilterPixelScalar (no FMA), so the same
// bits, at a third of the instructions. `kPixels` consecutive delivered pixels at a time, their
// sums independent, so that several are in flight instead of one chain of dependent adds;
// pixel j reads from pixels[j] with weights w + j * taps and writes out + j * stride. Reads 4
// floats per tap (for RGB one past the pixel: the caller's row has room) and writes 4 floats
// (for RGB one past the pixel: the caller's row has room, and the next pixel, stored after,
// overwrites it).
#if defined(__SSE2__)
template <int kPixels>
void FilterPixelsLanes(const float* const (&pixels)[kPixels], int stride, const float* w, int taps,
                       float* out) {
  __m128 sums[kPixels];
  for (__m128& sum : sums) sum = _mm_setzero_ps();
  for (int k = 0; k < taps; ++k) {
    for (int j = 0; j < kPixels; ++j) {
      sums[j] = _mm_add_ps(
          sums[j], _mm_mul_ps(_mm_set1_ps(w[j * taps + k]), _mm_loadu_ps(pixels[j] + k * stride)));
    }
  }
  for (int j = 0; j < kPixels; ++j) _mm_storeu_ps(out + j * stride, sums[j]);
}
#endif

// Filters one stored row into delivered columns: `in` holds the row's pixels from stored column
// `in_first` on, as floats, with one float more at the end.
template <int kChannels>
void FilterRow(const float* in, int64_t in_first, const AxisTaps& columns, int64_t width,
               float* out) {
  const int taps = columns.taps;
  const auto pixel = [&](int64_t x) {
    return in + (int64_t{columns.first[static_cast<size_t>(x)]} - in_first) * kChannels;
  };
  int64_t x = 0;
#if defined(__SSE2__)
  if constexpr (kChannels >= 3) {
    for (; x + 2 <= width; x += 2) {
      FilterPixelsLanes<2>({pixel(x), pixel(x + 1)}, kChannels, columns.weights.data() + x * taps,
                           taps, out + x * kChannels);
    }
    if (x < width) {
      FilterPixelsLanes<1>({pixel(x)}, kChannels, columns.weights.data() + x * taps, taps,
                           out + x * kChannels);
    }
    return;
  }
#endif
  for (; x < width; ++x) {
    FilterPixelScalar<kChannels>(pixel(x), columns.weights.data() + x * taps, taps,
                                 out + x * kChannels);
  }
}

// One delivered row of the vertical pass: out[i] = RoundToByte(sum over k of w[k] x
// rows[k x line + i]), each sum from 0 in tap order, for i in [begin, line).
void SumRowsScalar(const float* rows, int64_t line, const float* w, int taps, int64_t begin,
                   uint8_t* out) {
  for (int64_t i = begin; i < line; ++i) {
    float sum = 0.0f;
    for (int k = 0; k < taps; ++k) sum = sum + w[k] * rows[k * line + i];
    out[i] = RoundToByte(sum);
  }
}

#if defined(__SSE2__)
// RoundToByte of 4 lanes, as int32: the same add and subtract, the same clamps.
__m128i RoundToBytes(__m128 sum) {
  const __m128 round = _mm_set1_ps(12582912.0f);  // RoundToByte's 1.5 x 2^23
  const __m128 rounded = _mm_sub_ps(_mm_add_ps(sum, round), round);
  return _mm_cvttps_epi32(_mm_min_ps(_mm_max_ps(rounded, _mm_setzero_ps()), _mm_set1_ps(255.0f)));
}

// SumRowsScalar with 16 sums in registers at a time (4 independent chains), each lane's
// multiplies and adds in the same order, rounded and packed to bytes without a float line.
void SumRowsSse2(const float* rows, int64_t line, const float* w, int taps, uint8_t* out) {
  int64_t i = 0;
  for (; i + 16 <= line; i += 16) {
    __m128 sums[4] = {_mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps()};
    for (int k = 0; k < taps; ++k) {
      const __m128 weight = _mm_set1_ps(w[k]);
      const float* row = rows + k * line + i;
      for (int j = 0; j < 4; ++j) {
        sums[j] = _mm_add_ps(sums[j], _mm_mul_ps(weight, _mm_loadu_ps(row + 4 * j)));
      }
    }
    const __m128i low = _mm_packs_epi32(RoundToBytes(sums[0]), RoundToBytes(sums[1]));
    const __m128i high = _mm_packs_epi32(RoundToBytes(sums[2]), RoundToBytes(sums[3]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm_packus_epi16(low, high));
  }
  SumRowsScalar(rows, line, w, taps, i, out);
}
#endif

template <int kChannels>
void Resize(const uint8_t* image, const ImageShape& shape, const SampleTransform& t, bool antialias,
            int64_t y_begin, int64_t y_end, uint8_t* out_rows, int64_t row_stride) {
  Scratch& s = ThreadScratch();
  [[maybe_unused]] const bool avx2 =
      KernelsChoice().load(std::memory_order_relaxed) == ResizeKernels::kAvx2;
  const int64_t wo = t.columns.out;
  s.columns.Compute(t.columns, antialias, 0, wo);
  s.rows.Compute(t.rows, antialias, y_begin, y_end);
  const int ky = s.rows.taps;
  // The stored rows the range reads: tap starts never decrease with the delivered row.
  const int64_t row_first = s.rows.first.front();
  const int64_t row_end = s.rows.first.back() + ky;
  // The stored columns every row's taps read.
  const auto [first_column, last_column] =
      std::minmax_element(s.columns.first.begin(), s.columns.first.end());
  const int64_t column_first = *first_column;
  const int64_t source_size = (*last_column + s.columns.taps - column_first) * kChannels;
  const int64_t line_size = wo * kChannels;
  // One float more than the pixels: FilterPixelLanes's fourth lane past the last RGB pixel.
  // Grown, never shrunk: a vector zero-fills what it grows by, and every sample's sizes differ.
  GrowTo(s.source, source_size + 1);
  s.source[static_cast<size_t>(source_size)] = 0.0f;
  GrowTo(s.filtered, (row_end - row_first) * line_size + 1);

  // Horizontal pass: each needed stored row to delivered columns, in floats, in row order
  // (a row's lanes past its end are the next row's first floats, written after). Each stored
  // pixel is read by several taps: converted to float once, where the taps read it.
#if defined(H5FEED_RESIZE_AVX2)
  const bool pairs = avx2 && kChannels >= 3;
  if (pairs) PairWeightsAvx2(s.columns.weights.data(), s.columns.taps, wo, &s.column_pairs);
#endif
  for (int64_t r = row_first; r < row_end; ++r) {
    const uint8_t* in = image + (r * shape.width + column_first) * kChannels;
    float* source = s.source.data();
    float* filtered = s.filtered.data() + (r - row_first) * line_size;
#if defined(H5FEED_RESIZE_AVX2)
    if (pairs) {
      FilterRowAvx2(kChannels, in, source_size, source, column_first, s.columns.first.data(),
                    s.columns.weights.data(), s.column_pairs.data(), s.columns.taps, wo, filtered);
      continue;
    }
#endif
    for (int64_t i = 0; i < source_size; ++i) source[i] = static_cast<float>(in[i]);
    FilterRow<kChannels>(source, column_first, s.columns, wo, filtered);
  }
  // Vertical pass, a delivered row at a time: per value the sum over taps in tap order.
  for (int64_t y = y_begin; y < y_end; ++y) {
    const auto p = static_cast<size_t>(y - y_begin);
    const float* w = s.rows.weights.data() + p * static_cast<size_t>(ky);
    const float* in = s.filtered.data() + (s.rows.first[p] - row_first) * line_size;
    uint8_t* out = out_rows + (y - y_begin) * row_stride;
#if defined(H5FEED_RESIZE_AVX2)
    if (avx2) {
      SumRowsAvx2(in, line_size, w, ky, out);
      continue;
    }
#endif
#if defined(__SSE2__)
    SumRowsSse2(in, line_size, w, ky, out);
#else
    SumRowsScalar(in, line_size, w, ky, 0, out);
#endif
  }
}

}  // namespace

ResizeKernels ResizeKernelsInUse() { return KernelsChoice().load(std::memory_order_relaxed); }

bool UseResizeKernels(ResizeKernels kernels) {
  if (kernels == ResizeKernels::kAvx2 && DetectKernels() != ResizeKernels::kAvx2) return false;
  KernelsChoice().store(kernels, std::memory_order_relaxed);
  return true;
}

void ResizeSampleRows(const uint8_t* image, const ImageShape& shape, const SampleTransform& t,
                      bool antialias, int64_t y_begin, int64_t y_end, uint8_t* rows,
                      int64_t row_stride) {
  if (y_begin >= y_end) return;
  if (row_stride == 0) row_stride = int64_t{t.columns.out} * shape.channels;
  switch (shape.channels) {
    case 1: return Resize<1>(image, shape, t, antialias, y_begin, y_end, rows, row_stride);
    case 2: return Resize<2>(image, shape, t, antialias, y_begin, y_end, rows, row_stride);
    case 3: return Resize<3>(image, shape, t, antialias, y_begin, y_end, rows, row_stride);
    case 4: return Resize<4>(image, shape, t, antialias, y_begin, y_end, rows, row_stride);
    default:
      throw MakeError(ErrorCode::kUnsupported, "resize: {} channels (1 to 4 handled)",
                      shape.channels);
  }
}

}  // namespace h5feed::transform
