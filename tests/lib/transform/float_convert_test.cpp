// FloatToHalfBits / FloatToBFloat16Bits against independent references: where the CUDA toolkit
// is installed, CUDA's own __float2half_rn and __float2bfloat16_rn (their host
// implementations, which the device instructions match); everywhere, a nearest-value search
// in double arithmetic. Coverage: every sign, exponent and 16-bit low pattern (the bits that
// decide the rounding) plus every 61st float, about 100 million inputs.
#include "transform/float_convert.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>

#if defined(H5FEED_TEST_WITH_CUDA_HEADERS)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

namespace h5feed::transform {
namespace {

float FromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

double HalfValue(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const double mantissa = h & 0x3ff;
  const double magnitude =
      exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, exponent - 25);
  return (h & 0x8000) ? -magnitude : magnitude;
}

// The nearest of two neighbouring candidates, ties to the even one (the lower bit clear).
template <typename Value>
uint16_t Nearest(double x, uint16_t low, uint16_t high, Value value) {
  const double to_low = std::abs(x - value(low));
  const double to_high = std::abs(value(high) - x);
  if (to_low != to_high) return to_low < to_high ? low : high;
  return (low & 1) == 0 ? low : high;
}

uint16_t ReferenceHalf(float f) {
  const double x = std::abs(static_cast<double>(f));
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  if (x >= 65520.0) return sign | 0x7c00;
  // Magnitudes are ordered like their bit patterns: bisect for the last half <= x.
  uint16_t low = 0;
  uint16_t high = 0x7bff;
  while (low < high) {
    const auto mid = static_cast<uint16_t>((low + high + 1) / 2);
    if (HalfValue(mid) <= x)
      low = mid;
    else
      high = static_cast<uint16_t>(mid - 1);
  }
  const uint16_t up = static_cast<uint16_t>(low + 1);  // 0x7c00 = infinity above 65504
  const auto value = [](uint16_t h) { return h == 0x7c00 ? 65536.0 : HalfValue(h); };
  return sign | (HalfValue(low) == x ? low : Nearest(x, low, up, value));
}

uint16_t ReferenceBFloat16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  const auto low = static_cast<uint16_t>(bits >> 16);
  if ((bits & 0xffff) == 0) return low;
  const auto value = [sign = bits & 0x80000000u](uint16_t b) {
    return static_cast<double>(FromBits((static_cast<uint32_t>(b) << 16) | sign));
  };
  // Same sign, so magnitudes grow with the pattern; from the largest finite the next is inf.
  const uint16_t up = static_cast<uint16_t>(low + 1);
  const double x = static_cast<double>(f);
  if ((up & 0x7fff) == 0x7f80) {
    const double limit = std::ldexp(2.0, 127);  // where infinity's "value" would lie
    return std::abs(x) >= (std::abs(value(low)) + limit) / 2 ? up : low;
  }
  return Nearest(std::abs(x), low & 0x7fff, up & 0x7fff,
                 [&](uint16_t b) { return std::abs(value(b)); }) |
         static_cast<uint16_t>(low & 0x8000);
}

template <typename Check>
void ForCoveredFloats(Check check) {
  for (uint32_t sign_exponent = 0; sign_exponent < 512; ++sign_exponent) {
    for (uint32_t low = 0; low < 65536; ++low) {
      // The 16 low bits, under every exponent, with the 7 mantissa bits above them 0, 1 or all.
      for (uint32_t middle : {0u, 1u, 0x55u, 0x7fu}) {
        check((sign_exponent << 23) | (middle << 16) | low);
      }
    }
  }
  for (uint64_t bits = 0; bits <= 0xffffffffull; bits += 61) check(static_cast<uint32_t>(bits));
}

TEST_CASE("float to half rounds to nearest-even like an exact reference") {
  int64_t wrong = 0;
  int64_t checked = 0;
  ForCoveredFloats([&](uint32_t bits) {
    const float f = FromBits(bits);
    if (std::isnan(f)) {
      wrong += (FloatToHalfBits(f) & 0x7fff) <= 0x7c00;
      return;
    }
    ++checked;
    // The exact search is slow: every 16th input, and every input near a half's rounding edge.
    if ((bits & 0xf) == 0 || (bits & 0x1fff) == 0x1000 || (bits & 0x1fff) == 0x0fff) {
      wrong += FloatToHalfBits(f) != ReferenceHalf(f);
    }
#if defined(H5FEED_TEST_WITH_CUDA_HEADERS)
    wrong += FloatToHalfBits(f) != __half_as_ushort(__float2half_rn(f));
#endif
  });
  CHECK(wrong == 0);
  CHECK(checked > 100'000'000);
}

TEST_CASE("float to bfloat16 rounds to nearest-even like an exact reference") {
  int64_t wrong = 0;
  ForCoveredFloats([&](uint32_t bits) {
    const float f = FromBits(bits);
    if (std::isnan(f)) {
      const uint16_t b = FloatToBFloat16Bits(f);
      wrong += (b & 0x7fff) <= 0x7f80;
      return;
    }
    wrong += FloatToBFloat16Bits(f) != ReferenceBFloat16(f);
#if defined(H5FEED_TEST_WITH_CUDA_HEADERS)
    wrong += FloatToBFloat16Bits(f) != __bfloat16_as_ushort(__float2bfloat16_rn(f));
#endif
  });
  CHECK(wrong == 0);
}

TEST_CASE("known values convert to their documented bits") {
  CHECK(FloatToHalfBits(1.0f) == 0x3c00);
  CHECK(FloatToHalfBits(-2.0f) == 0xc000);
  CHECK(FloatToHalfBits(65504.0f) == 0x7bff);
  CHECK(FloatToHalfBits(65520.0f) == 0x7c00);                      // the midpoint to 2^16 rounds up
  CHECK(FloatToHalfBits(std::ldexp(1.0f, -24)) == 0x0001);         // smallest subnormal
  CHECK(FloatToHalfBits(std::ldexp(1.0f, -25)) == 0x0000);         // its half: tie to even zero
  CHECK(FloatToHalfBits(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);  // tie, even stays
  CHECK(FloatToBFloat16Bits(1.0f) == 0x3f80);
  CHECK(FloatToBFloat16Bits(FromBits(0x3f808000)) == 0x3f80);  // tie to even
  CHECK(FloatToBFloat16Bits(FromBits(0x3f818000)) == 0x3f82);  // tie to even, upward
  CHECK(FloatToBFloat16Bits(FromBits(0x7f7fffff)) == 0x7f80);  // overflow to infinity
}

}  // namespace
}  // namespace h5feed::transform
