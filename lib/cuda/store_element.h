#pragma once
// A normalized value stored as the delivered element type, for the kernels: float32 as is,
// float16 and bfloat16 as their bits from transform/float_convert.h (the CPU path's
// conversions, so both sides store the same bits). Device code, C++17.

#include <cstdint>

#include "h5feed/output_options.h"
#include "transform/float_convert.h"

namespace h5feed::cuda {

// Stored is float (float32) or uint16_t (the bits of float16 / bfloat16).
template <typename Stored>
__device__ inline Stored StoreElement(float value, ElementType type) {
  if constexpr (sizeof(Stored) == 4) {
    return value;
  } else {
    return type == ElementType::kFloat16 ? transform::FloatToHalfBits(value)
                                         : transform::FloatToBFloat16Bits(value);
  }
}

}  // namespace h5feed::cuda
