// Compiled with -ffp-contract=off, as the whole module: no product is fused into a sum.
#include "transform/resize_avx2.h"

#if defined(H5FEED_RESIZE_AVX2)
#include <immintrin.h>

#include <algorithm>

#include "transform/resize_taps.h"

namespace h5feed::transform {
namespace {

// `kPairs` pairs of delivered pixels at a time, their sums independent so that several are in
// flight: pixels 2j and 2j + 1 in the low and high lanes of pair j, read from pixels[2j] and
// pixels[2j + 1] (4 floats per tap: for RGB one past the pixel), weights from
// w + j x taps x 8. Writes 4 floats per pixel, pixel after pixel.
template <int kChannels, int kPairs>
__attribute__((target("avx2"))) void FilterPairsAvx2(const float* const (&pixels)[2 * kPairs],
                                                     const float* w, int taps, float* out) {
  __m256 sums[kPairs];
  for (__m256& sum : sums) sum = _mm256_setzero_ps();
  for (int k = 0; k < taps; ++k) {
    for (int j = 0; j < kPairs; ++j) {
      const __m256 lanes =
          _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(pixels[2 * j] + k * kChannels)),
                               _mm_loadu_ps(pixels[2 * j + 1] + k * kChannels), 1);
      sums[j] =
          _mm256_add_ps(sums[j], _mm256_mul_ps(_mm256_loadu_ps(w + (j * taps + k) * 8), lanes));
    }
  }
  for (int j = 0; j < kPairs; ++j) {
    _mm_storeu_ps(out + 2 * j * kChannels, _mm256_castps256_ps128(sums[j]));
    _mm_storeu_ps(out + (2 * j + 1) * kChannels, _mm256_extractf128_ps(sums[j], 1));
  }
}

// A last, unpaired pixel: its channels in the lanes of one 128-bit register.
template <int kChannels>
__attribute__((target("avx2"))) void FilterLastPixelAvx2(const float* pixel, const float* w,
                                                         int taps, float* out) {
  __m128 sum = _mm_setzero_ps();
  for (int k = 0; k < taps; ++k) {
    sum = _mm_add_ps(sum, _mm_mul_ps(_mm_set1_ps(w[k]), _mm_loadu_ps(pixel + k * kChannels)));
  }
  _mm_storeu_ps(out, sum);
}

template <int kChannels>
__attribute__((target("avx2"))) void FilterRowChannelsAvx2(
    const uint8_t* bytes, int64_t count, float* source, int64_t source_first, const int32_t* first,
    const float* weights, const float* pair_weights, int taps, int64_t width, float* out) {
  // Each stored pixel is read by several taps: converted to float once, 8 per instruction.
  for (int64_t i = 0; i < count; ++i) source[i] = static_cast<float>(bytes[i]);
  const auto pixel = [&](int64_t x) { return source + (first[x] - source_first) * kChannels; };
  int64_t x = 0;
  for (; x + 4 <= width; x += 4) {
    FilterPairsAvx2<kChannels, 2>({pixel(x), pixel(x + 1), pixel(x + 2), pixel(x + 3)},
                                  pair_weights + x / 2 * taps * 8, taps, out + x * kChannels);
  }
  if (x + 2 <= width) {
    FilterPairsAvx2<kChannels, 1>({pixel(x), pixel(x + 1)}, pair_weights + x / 2 * taps * 8, taps,
                                  out + x * kChannels);
    x += 2;
  }
  if (x < width)
    FilterLastPixelAvx2<kChannels>(pixel(x), weights + x * taps, taps, out + x * kChannels);
}

// RoundToByte of 8 lanes, as int32: the same add and subtract, the same clamps.
__attribute__((target("avx2"))) __m256i RoundToBytesAvx2(__m256 sum) {
  const __m256 round = _mm256_set1_ps(12582912.0f);  // RoundToByte's 1.5 x 2^23
  const __m256 rounded = _mm256_sub_ps(_mm256_add_ps(sum, round), round);
  return _mm256_cvttps_epi32(
      _mm256_min_ps(_mm256_max_ps(rounded, _mm256_setzero_ps()), _mm256_set1_ps(255.0f)));
}

}  // namespace

bool CpuHasAvx2() {
  // The CPU model is read by a constructor of the runtime library; this call makes sure it has
  // been, should the first resize run from another constructor.
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
}

void PairWeightsAvx2(const float* weights, int taps, int64_t pixels, std::vector<float>* pairs) {
  const auto n = static_cast<size_t>(taps);
  const auto count = static_cast<size_t>(pixels / 2);
  pairs->resize(count * n * 8);
  for (size_t q = 0; q < count; ++q) {
    for (size_t k = 0; k < n; ++k) {
      float* lanes = pairs->data() + (q * n + k) * 8;
      std::fill(lanes, lanes + 4, weights[2 * q * n + k]);
      std::fill(lanes + 4, lanes + 8, weights[(2 * q + 1) * n + k]);
    }
  }
}

void FilterRowAvx2(int channels, const uint8_t* bytes, int64_t count, float* source,
                   int64_t source_first, const int32_t* first, const float* weights,
                   const float* pair_weights, int taps, int64_t width, float* out) {
  if (channels == 3) {
    FilterRowChannelsAvx2<3>(bytes, count, source, source_first, first, weights, pair_weights, taps,
                             width, out);
  } else {
    FilterRowChannelsAvx2<4>(bytes, count, source, source_first, first, weights, pair_weights, taps,
                             width, out);
  }
}

// 32 sums in registers at a time (4 independent chains), then 8, then one at a time; rounded
// and packed to bytes in registers.
__attribute__((target("avx2"))) void SumRowsAvx2(const float* rows, int64_t line, const float* w,
                                                 int taps, uint8_t* out) {
  int64_t i = 0;
  for (; i + 32 <= line; i += 32) {
    __m256 sums[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(),
                      _mm256_setzero_ps()};
    for (int k = 0; k < taps; ++k) {
      const __m256 weight = _mm256_set1_ps(w[k]);
      const float* row = rows + k * line + i;
      for (int j = 0; j < 4; ++j) {
        sums[j] = _mm256_add_ps(sums[j], _mm256_mul_ps(weight, _mm256_loadu_ps(row + 8 * j)));
      }
    }
    // The packs work within 128-bit halves: 4-byte groups come out in the order 0 2 4 6 1 3 5 7,
    // put back in order by the permute.
    const __m256i low = _mm256_packs_epi32(RoundToBytesAvx2(sums[0]), RoundToBytesAvx2(sums[1]));
    const __m256i high = _mm256_packs_epi32(RoundToBytesAvx2(sums[2]), RoundToBytesAvx2(sums[3]));
    const __m256i bytes = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(low, high),
                                                      _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), bytes);
  }
  for (; i + 8 <= line; i += 8) {
    __m256 sum = _mm256_setzero_ps();
    for (int k = 0; k < taps; ++k) {
      sum = _mm256_add_ps(
          sum, _mm256_mul_ps(_mm256_set1_ps(w[k]), _mm256_loadu_ps(rows + k * line + i)));
    }
    const __m256i values = RoundToBytesAvx2(sum);
    const __m128i words =
        _mm_packs_epi32(_mm256_castsi256_si128(values), _mm256_extracti128_si256(values, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + i), _mm_packus_epi16(words, words));
  }
  for (; i < line; ++i) {
    float sum = 0.0f;
    for (int k = 0; k < taps; ++k) sum = sum + w[k] * rows[k * line + i];
    out[i] = RoundToByte(sum);
  }
}

}  // namespace h5feed::transform
#endif
