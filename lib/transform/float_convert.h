#pragma once
// Float to float16 and bfloat16, rounded to nearest-even, written once for the CPU path and
// the GPU kernel so both produce the same bits (no dependence on cuda_fp16.h on the host, and
// on the device the same integer arithmetic rather than cvt instructions, so "equal" is by
// construction; tests/lib/transform/float_convert_test.cpp proves these equal to CUDA's own
// __float2half_rn / __float2bfloat16_rn host implementations for every finite float, and
// tests/lib/cuda/ to the device instructions).
//
// NaN maps to a quiet NaN of the same sign (0x7E00 / 0x7FC0); CUDA's device conversions give
// canonical NaNs, so NaN payloads are not compared (normalized pixels are never NaN: their
// factors are checked finite in MakeNormalizeParams).
//
// C++17, header-only, host/device-neutral (nvcc compiles cuda/ as C++17).

#include <cstdint>
#include <cstring>

#include "transform/host_device.h"

namespace h5feed::transform {

H5FEED_HOST_DEVICE inline uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);  // compiles to a register move on both sides
  return bits;
}

// IEEE binary16 bits of `value`, round to nearest, ties to even; overflow to infinity.
H5FEED_HOST_DEVICE inline uint16_t FloatToHalfBits(float value) {
  const uint32_t bits = FloatBits(value);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x7f800000u) {  // infinity or NaN
    return static_cast<uint16_t>(sign | (magnitude > 0x7f800000u ? 0x7e00u : 0x7c00u));
  }
  // 65520 (0x477ff000) is the midpoint between the largest half, 65504, and 2^16: it and
  // everything above round to infinity.
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);
  const uint32_t exponent = magnitude >> 23;  // biased by 127
  if (exponent < 113) {
    // Below 2^-14: a half subnormal m x 2^-24. With the implicit bit, the float is
    // mantissa x 2^(exponent - 150), so m = mantissa >> (126 - exponent), rounded.
    if (exponent < 101) return static_cast<uint16_t>(sign);  // below 2^-26: rounds to zero
    const uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - exponent;  // 14 .. 25
    uint32_t half = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1);
    const uint32_t midpoint = 1u << (shift - 1);
    if (rest > midpoint || (rest == midpoint && (half & 1u))) ++half;  // may carry to 2^-14
    return static_cast<uint16_t>(sign | half);
  }
  // Normal: rebias the exponent (127 -> 15) and drop 13 mantissa bits, rounding; a carry
  // out of the mantissa correctly bumps the exponent.
  uint32_t half = ((exponent - 112) << 10) | ((magnitude >> 13) & 0x3ffu);
  const uint32_t rest = magnitude & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
  return static_cast<uint16_t>(sign | half);
}

// bfloat16 bits of `value` (the float's top 16 bits), round to nearest, ties to even.
H5FEED_HOST_DEVICE inline uint16_t FloatToBFloat16Bits(float value) {
  const uint32_t bits = FloatBits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) {
    return static_cast<uint16_t>(((bits >> 16) & 0x8000u) | 0x7fc0u);
  }
  // Adding 0x7fff, plus one when the kept part is odd, carries into bit 16 exactly when the
  // dropped half is above the midpoint, or at it with an odd kept part.
  const uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

}  // namespace h5feed::transform
