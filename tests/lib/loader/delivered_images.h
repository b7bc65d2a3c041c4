#pragma once
// Reads a delivered image tensor (Batch::image_tensor()) back as floats indexed (n, c, y, x)
// whatever its element type and layout, for tests of the CPU and GPU paths. Half and bfloat16
// are widened exactly (every value of theirs is a float).

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "h5feed/loader.h"

namespace h5feed::testing {

inline float HalfToFloat(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  float magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  else if (exponent == 31)
    magnitude = mantissa ? NAN : INFINITY;
  else
    magnitude = std::ldexp(static_cast<float>(1024 + mantissa), exponent - 25);
  return (h & 0x8000) ? -magnitude : magnitude;
}

inline float BFloat16ToFloat(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

inline size_t ElementBytes(ElementType type) {
  switch (type) {
    case ElementType::kUint8: return 1;
    case ElementType::kFloat16:
    case ElementType::kBFloat16: return 2;
    default: return 4;
  }
}

// `view` describes the tensor; `data` holds its bytes on the host (view.data itself for host
// tensors, a copy for device ones).
class DeliveredImages {
 public:
  DeliveredImages(const TensorView& view, bool nhwc, const void* data)
      : view_(view), nhwc_(nhwc), data_(static_cast<const uint8_t*>(data)) {}

  int64_t samples() const { return view_.shape[0]; }
  int64_t channels() const { return nhwc_ ? view_.shape[3] : view_.shape[1]; }
  int64_t height() const { return nhwc_ ? view_.shape[1] : view_.shape[2]; }
  int64_t width() const { return nhwc_ ? view_.shape[2] : view_.shape[3]; }

  // The raw element bits (float32 bits, or the 16 bits of a half / bfloat16).
  uint32_t bits(int64_t n, int64_t c, int64_t y, int64_t x) const {
    const int64_t i = nhwc_ ? Offset(n, y, x, c) : Offset(n, c, y, x);
    const size_t size = ElementBytes(view_.type);
    uint32_t value = 0;
    std::memcpy(&value, data_ + static_cast<size_t>(i) * size, size);
    return value;
  }

  float at(int64_t n, int64_t c, int64_t y, int64_t x) const {
    const uint32_t b = bits(n, c, y, x);
    switch (view_.type) {
      case ElementType::kFloat16: return HalfToFloat(static_cast<uint16_t>(b));
      case ElementType::kBFloat16: return BFloat16ToFloat(static_cast<uint16_t>(b));
      default: {
        float f;
        std::memcpy(&f, &b, sizeof f);
        return f;
      }
    }
  }

 private:
  int64_t Offset(int64_t a, int64_t b, int64_t c, int64_t d) const {
    return a * view_.strides[0] + b * view_.strides[1] + c * view_.strides[2] +
           d * view_.strides[3];
  }

  TensorView view_;
  bool nhwc_;
  const uint8_t* data_;
};

}  // namespace h5feed::testing
