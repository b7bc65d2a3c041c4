// Compiled with -ffp-contract=off (see normalize.h: the multiply and the add must stay two
// rounded operations for the CPU and the GPU to agree bit for bit).
#include "transform/sample_normalize.h"

#include <algorithm>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "make_error.h"
#include "transform/float_convert.h"
#include "transform/normalize.h"
#include "transform/resize_sample.h"
#include "transform/rgb_row_normalize.h"

namespace h5feed::transform {
namespace {

template <ElementType kType>
struct Element;
template <>
struct Element<ElementType::kUint8> {
  using Stored = uint8_t;
  // Exact: a uint8 view's value is the pixel itself (identity normalization, output_spec.h).
  static uint8_t From(float value) { return static_cast<uint8_t>(value); }
};
template <>
struct Element<ElementType::kFloat32> {
  using Stored = float;
  static float From(float value) { return value; }
};
template <>
struct Element<ElementType::kFloat16> {
  using Stored = uint16_t;
  static uint16_t From(float value) { return FloatToHalfBits(value); }
};
template <>
struct Element<ElementType::kBFloat16> {
  using Stored = uint16_t;
  static uint16_t From(float value) { return FloatToBFloat16Bits(value); }
};

// One sample's delivered rows, for a compile-time channel count, type and layout: the inner
// loops are strided loads and (NCHW) contiguous stores, which GCC vectorises; float32 NCHW of
// RGB, the common case, goes a row at a time through NormalizeRgbRow's whole-register loads.
template <int kChannels, ElementType kType, Layout kLayout>
void SampleRows(const uint8_t* image, const ImageShape& shape, const OutputSpec& spec,
                const SampleTransform& t, int64_t y_begin, int64_t y_end, uint8_t* dest_bytes) {
  using E = Element<kType>;
  using Stored = typename E::Stored;
  auto* dest = reinterpret_cast<Stored*>(dest_bytes);
  const AugmentParams& a = spec.augment;
  const int64_t ho = a.out_height;
  const int64_t wo = a.out_width;
  // Where delivered element (c, y, x) goes.
  auto at = [&](int c, int64_t y, int64_t x) -> Stored& {
    if constexpr (kLayout == Layout::kNCHW) return dest[(c * ho + y) * wo + x];
    return dest[(y * wo + x) * kChannels + c];
  };
  // Delivered columns [x_begin, x_end) read inside the window; the others are padding.
  const int64_t x_begin = std::clamp<int64_t>(t.flip ? t.shift_x : -t.shift_x, 0, wo);
  const int64_t x_end = std::clamp<int64_t>(t.flip ? wo + t.shift_x : wo - t.shift_x, x_begin, wo);
  if constexpr (kChannels == 3 && kType == ElementType::kFloat32 && kLayout == Layout::kNCHW) {
    const float* scale = spec.normalize.scale;
    const float* bias = spec.normalize.bias;
    for (int64_t y = y_begin; y < y_end; ++y) {
      const int64_t sy = y + t.shift_y;
      const bool padding_row = sy < 0 || sy >= ho;
      for (int c = 0; c < 3; ++c) {
        const float zero = NormalizePixel(0, scale[c], bias[c]);
        float* plane = &at(c, y, 0);
        std::fill(plane, plane + (padding_row ? wo : x_begin), zero);
        if (!padding_row) std::fill(plane + x_end, plane + wo, zero);
      }
      if (padding_row) continue;
      const uint8_t* row = image + ((a.crop_top + sy) * shape.width + a.crop_left) * 3;
      const uint8_t* first =
          t.flip ? row + (wo - 1 + t.shift_x - x_begin) * 3 : row + (t.shift_x + x_begin) * 3;
      float* const planes[3] = {&at(0, y, x_begin), &at(1, y, x_begin), &at(2, y, x_begin)};
      NormalizeRgbRow(first, x_end - x_begin, t.flip, scale, bias, planes);
    }
    return;
  }
  for (int c = 0; c < kChannels; ++c) {
    const float scale = spec.normalize.scale[c];
    const float bias = spec.normalize.bias[c];
    const Stored zero = E::From(NormalizePixel(0, scale, bias));
    for (int64_t y = y_begin; y < y_end; ++y) {
      const int64_t sy = y + t.shift_y;
      if (sy < 0 || sy >= ho) {
        for (int64_t x = 0; x < wo; ++x) at(c, y, x) = zero;
        continue;
      }
      const uint8_t* row = image + ((a.crop_top + sy) * shape.width + a.crop_left) * kChannels + c;
      for (int64_t x = 0; x < x_begin; ++x) at(c, y, x) = zero;
      if (t.flip) {
        const uint8_t* in = row + (wo - 1 + t.shift_x) * kChannels;  // column x = 0
        for (int64_t x = x_begin; x < x_end; ++x) {
          at(c, y, x) = E::From(NormalizePixel(in[-x * kChannels], scale, bias));
        }
      } else {
        const uint8_t* in = row + t.shift_x * kChannels;
        for (int64_t x = x_begin; x < x_end; ++x) {
          at(c, y, x) = E::From(NormalizePixel(in[x * kChannels], scale, bias));
        }
      }
      for (int64_t x = x_end; x < wo; ++x) at(c, y, x) = zero;
    }
  }
}

using RowsFunction = void (*)(const uint8_t*, const ImageShape&, const OutputSpec&,
                              const SampleTransform&, int64_t, int64_t, uint8_t*);

template <int kChannels, ElementType kType>
RowsFunction ForLayout(Layout layout) {
  return layout == Layout::kNCHW ? &SampleRows<kChannels, kType, Layout::kNCHW>
                                 : &SampleRows<kChannels, kType, Layout::kNHWC>;
}

template <int kChannels>
RowsFunction ForType(ElementType type, Layout layout) {
  switch (type) {
    case ElementType::kFloat16: return ForLayout<kChannels, ElementType::kFloat16>(layout);
    case ElementType::kBFloat16: return ForLayout<kChannels, ElementType::kBFloat16>(layout);
    case ElementType::kUint8: return ForLayout<kChannels, ElementType::kUint8>(layout);
    default: return ForLayout<kChannels, ElementType::kFloat32>(layout);
  }
}

RowsFunction Select(int64_t channels, const OutputSpec& spec) {
  switch (channels) {
    case 1: return ForType<1>(spec.type, spec.layout);
    case 2: return ForType<2>(spec.type, spec.layout);
    case 3: return ForType<3>(spec.type, spec.layout);
    case 4: return ForType<4>(spec.type, spec.layout);
    default:
      throw MakeError(ErrorCode::kUnsupported, "normalize: {} channels (1 to 4 handled)", channels);
  }
}

}  // namespace

void NormalizeSampleRows(const uint8_t* image, const ImageShape& shape, const OutputSpec& spec,
                         const SampleTransform& transform, int64_t y_begin, int64_t y_end,
                         uint8_t* dest) {
  const RowsFunction rows_function = Select(shape.channels, spec);
  if (!spec.augment.resizes()) {
    rows_function(image, shape, spec, transform, y_begin, y_end, dest);
    return;
  }
  // The resized rows, rounded to uint8 as torchvision rounds them, then flipped and normalized
  // by the window path over them: a window of those rows alone, whose delivered row y lies at
  // row y - y_begin.
  thread_local std::vector<uint8_t> resized;
  const int64_t width = spec.augment.out_width;
  resized.resize(static_cast<size_t>((y_end - y_begin) * width * shape.channels));
  ResizeSampleRows(image, shape, transform, spec.augment.antialias, y_begin, y_end, resized.data());
  OutputSpec window = spec;
  window.augment.crop = CropKind::kWindow;
  window.augment.crop_top = static_cast<int32_t>(-y_begin);
  window.augment.crop_left = 0;
  window.augment.padding = 0;
  SampleTransform flip_only;
  flip_only.flip = transform.flip;
  const ImageShape rows_shape{y_end - y_begin, width, shape.channels};
  rows_function(resized.data(), rows_shape, window, flip_only, y_begin, y_end, dest);
}

}  // namespace h5feed::transform
