// Compiled with -ffp-contract=off (normalize.h): the multiply and the add stay two rounded
// operations, in registers as in NormalizePixel.
#include "transform/rgb_row_normalize.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "transform/normalize.h"

namespace h5feed::transform {
namespace {

void ScalarPixels(const uint8_t* pixels, int64_t begin, int64_t end, bool mirrored,
                  const float scale[3], const float bias[3], float* const planes[3]) {
  const int64_t step = mirrored ? -3 : 3;
  for (int64_t x = begin; x < end; ++x) {
    for (int c = 0; c < 3; ++c) {
      planes[c][x] = NormalizePixel(pixels[x * step + c], scale[c], bias[c]);
    }
  }
}

#if defined(__SSE2__)
// Four pixels' channels, interleaved over three registers (r0 g0 b0 r1 | g1 b1 r2 g2 |
// b2 r3 g3 b3), separated into one register per channel (r0 r1 r2 r3, and so on).
void Deinterleave(__m128 a, __m128 b, __m128 c, __m128* r, __m128* g, __m128* bl) {
  const __m128 b2_c1 = _mm_shuffle_ps(b, c, _MM_SHUFFLE(0, 1, 0, 2));  // b2 . c1 .
  *r = _mm_shuffle_ps(a, b2_c1, _MM_SHUFFLE(2, 0, 3, 0));              // a0 a3 b2 c1
  const __m128 a1_b0 = _mm_shuffle_ps(a, b, _MM_SHUFFLE(0, 0, 0, 1));  // a1 . b0 .
  const __m128 b3_c2 = _mm_shuffle_ps(b, c, _MM_SHUFFLE(0, 2, 0, 3));  // b3 . c2 .
  *g = _mm_shuffle_ps(a1_b0, b3_c2, _MM_SHUFFLE(2, 0, 2, 0));          // a1 b0 b3 c2
  const __m128 a2_b1 = _mm_shuffle_ps(a, b, _MM_SHUFFLE(0, 1, 0, 2));  // a2 . b1 .
  const __m128 c0_c3 = _mm_shuffle_ps(c, c, _MM_SHUFFLE(0, 3, 0, 0));  // c0 . c3 .
  *bl = _mm_shuffle_ps(a2_b1, c0_c3, _MM_SHUFFLE(2, 0, 2, 0));         // a2 b1 c0 c3
}

__m128 Reversed(__m128 v) { return _mm_shuffle_ps(v, v, _MM_SHUFFLE(0, 1, 2, 3)); }

// Sixteen pixels (48 bytes from `bytes`) normalized into the planes at x .. x + 15, or, mirrored,
// at x + 15 .. x (the first pixel read goes to x + 15).
void SixteenPixels(const uint8_t* bytes, int64_t x, bool mirrored, const __m128 scale[3],
                   const __m128 bias[3], float* const planes[3]) {
  const __m128i zero = _mm_setzero_si128();
  __m128 values[12];
  for (int part = 0; part < 3; ++part) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + 16 * part));
    const __m128i low = _mm_unpacklo_epi8(v, zero);
    const __m128i high = _mm_unpackhi_epi8(v, zero);
    const __m128i words[4] = {_mm_unpacklo_epi16(low, zero), _mm_unpackhi_epi16(low, zero),
                              _mm_unpacklo_epi16(high, zero), _mm_unpackhi_epi16(high, zero)};
    for (int k = 0; k < 4; ++k) {
      const int at =
          4 * part + k;  // values [4 at, 4 at + 4) of the 48; channel of the first: at % 3
      values[at] = _mm_add_ps(_mm_mul_ps(_mm_cvtepi32_ps(words[k]), scale[at % 3]), bias[at % 3]);
    }
  }
  for (int group = 0; group < 4; ++group) {
    __m128 channel[3];
    Deinterleave(values[3 * group], values[3 * group + 1], values[3 * group + 2], &channel[0],
                 &channel[1], &channel[2]);
    for (int c = 0; c < 3; ++c) {
      if (mirrored) {
        _mm_storeu_ps(planes[c] + x + 12 - 4 * group, Reversed(channel[c]));
      } else {
        _mm_storeu_ps(planes[c] + x + 4 * group, channel[c]);
      }
    }
  }
}
#endif

}  // namespace

void NormalizeRgbRow(const uint8_t* pixels, int64_t n, bool mirrored, const float scale[3],
                     const float bias[3], float* const planes[3]) {
  int64_t x = 0;
#if defined(__SSE2__)
  // Lanes of a register hold channels c, c+1, c+2, c (mod 3) for a register starting at channel c.
  __m128 scales[3];
  __m128 biases[3];
  for (int c = 0; c < 3; ++c) {
    scales[c] = _mm_setr_ps(scale[c], scale[(c + 1) % 3], scale[(c + 2) % 3], scale[c]);
    biases[c] = _mm_setr_ps(bias[c], bias[(c + 1) % 3], bias[(c + 2) % 3], bias[c]);
  }
  for (; x + 16 <= n; x += 16) {
    // Mirrored, pixels x .. x + 15 lie at x + 15 (lowest address) up to x.
    const uint8_t* bytes = mirrored ? pixels - 3 * (x + 15) : pixels + 3 * x;
    SixteenPixels(bytes, x, mirrored, scales, biases, planes);
  }
#endif
  ScalarPixels(pixels, x, n, mirrored, scale, bias, planes);
}

}  // namespace h5feed::transform
