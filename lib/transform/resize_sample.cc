// Compiled with -ffp-contract=off: every product and sum is rounded on its own, as on the GPU.
#include "transform/resize_sample.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "make_error.h"
#include "transform/resize_taps.h"

namespace h5feed::transform {
namespace {

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
  std::vector<float> source;    // the stored columns the taps read, of one row, x C
  std::vector<float> filtered;  // stored rows x delivered columns x C
  std::vector<float> line;      // one delivered row, x C
};

Scratch& ThreadScratch() {
  thread_local Scratch scratch;
  return scratch;
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

template <int kChannels>
void Resize(const uint8_t* image, const ImageShape& shape, const SampleTransform& t, bool antialias,
            int64_t y_begin, int64_t y_end, uint8_t* out_rows, int64_t row_stride) {
  Scratch& s = ThreadScratch();
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
  s.source.resize(static_cast<size_t>(source_size + 1));
  s.source.back() = 0.0f;
  s.filtered.resize(static_cast<size_t>((row_end - row_first) * line_size + 1));
  s.line.resize(static_cast<size_t>(line_size));

  // Horizontal pass: each needed stored row to delivered columns, in floats, in row order
  // (a row's lanes past its end are the next row's first floats, written after). Each stored
  // pixel is read by several taps: converted to float once, where the taps read it.
  for (int64_t r = row_first; r < row_end; ++r) {
    const uint8_t* in = image + (r * shape.width + column_first) * kChannels;
    float* source = s.source.data();
    for (int64_t i = 0; i < source_size; ++i) source[i] = static_cast<float>(in[i]);
    FilterRow<kChannels>(source, column_first, s.columns, wo,
                         s.filtered.data() + (r - row_first) * line_size);
  }
  // Vertical pass, a delivered row at a time: the sum over taps in tap order, each step a
  // contiguous multiply-add over the row.
  float* line = s.line.data();
  for (int64_t y = y_begin; y < y_end; ++y) {
    const auto p = static_cast<size_t>(y - y_begin);
    const float* w = s.rows.weights.data() + p * static_cast<size_t>(ky);
    const float* in = s.filtered.data() + (s.rows.first[p] - row_first) * line_size;
    std::fill(line, line + line_size, 0.0f);
    for (int k = 0; k < ky; ++k) {
      const float weight = w[k];
      const float* row = in + k * line_size;
      for (int64_t i = 0; i < line_size; ++i) line[i] = line[i] + weight * row[i];
    }
    uint8_t* out = out_rows + (y - y_begin) * row_stride;
    for (int64_t i = 0; i < line_size; ++i) out[i] = RoundToByte(line[i]);
  }
}

}  // namespace

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
