#pragma once
// The resize's AVX2 kernels (resize_sample.h): the horizontal pass of a stored row with a pixel
// pair per 256-bit register, and the vertical pass 8 values per register, rounded to bytes.
// In each lane the same multiplies and adds in the same order as the baseline kernels and
// resize_taps.h's definition, never fused (the target is "avx2" alone, without "fma", and the
// module is compiled with -ffp-contract=off), so the same bits. Compiled for AVX2 by function
// attributes whatever the build's -march: call them only where CpuHasAvx2().

#include <cstdint>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define H5FEED_RESIZE_AVX2 1
#endif

namespace h5feed::transform {

#if defined(H5FEED_RESIZE_AVX2)
bool CpuHasAvx2();

// The horizontal weights (`taps` per delivered pixel, `pixels` pixels) laid out for
// FilterRowAvx2: pair q (pixels 2q and 2q + 1), tap k at [(q x taps + k) x 8], pixel 2q's
// weight in lanes 0-3, pixel 2q + 1's in lanes 4-7, so one load feeds both pixels' channels.
void PairWeightsAvx2(const float* weights, int taps, int64_t pixels, std::vector<float>* pairs);

// One stored row of 3 or 4 channels: its `count` bytes (from stored column `source_first` on)
// into `source` as floats (room for one more float, which must be finite), then delivered
// pixel x (x < width) = sum over k of weights[x x taps + k] x the pixel at stored column
// first[x] + k, per channel, into out + x x channels. Writes one float past the last pixel for
// RGB (the caller's row has room; the next row, written after, overwrites it).
void FilterRowAvx2(int channels, const uint8_t* bytes, int64_t count, float* source,
                   int64_t source_first, const int32_t* first, const float* weights,
                   const float* pair_weights, int taps, int64_t width, float* out);

// One delivered row of the vertical pass: out[i] = RoundToByte(sum over k of w[k] x
// rows[k x line + i]), each sum from 0 in tap order, for i in [0, line).
void SumRowsAvx2(const float* rows, int64_t line, const float* w, int taps, uint8_t* out);
#endif

}  // namespace h5feed::transform
