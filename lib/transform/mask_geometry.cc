#include "transform/mask_geometry.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::transform {
namespace {

// Whether the axis reads only stored pixels [0, extent) and delivers a size the kernels'
// int32 indices hold.
bool AxisFits(const ResizeAxis& axis, int64_t extent) {
  return axis.src_size >= 1 && axis.resized >= 1 && axis.out >= 0 && axis.src_begin >= 0 &&
         int64_t{axis.src_begin} + axis.src_size <= extent;
}

template <typename T>
void Transform(const SampleGeometry& geometry, std::span<const T> mask, const MaskShape& shape,
               std::span<T> out, int64_t out_row_stride, T fill) {
  const int64_t out_height = geometry.rows.out;
  const int64_t out_width = geometry.columns.out;
  const int64_t stride = out_row_stride == 0 ? out_width : out_row_stride;
  if (shape.height < 1 || shape.width < 1 ||
      static_cast<int64_t>(mask.size()) < shape.height * shape.width) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "mask geometry: a {}x{} mask in {} values; pass the whole mask, rows packed",
                    shape.height, shape.width, mask.size());
  }
  if (!AxisFits(geometry.rows, shape.height) || !AxisFits(geometry.columns, shape.width)) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "mask geometry: the window rows {}+{}, columns {}+{} leaves the {}x{} mask; "
                    "give the mask of the image whose geometry this is",
                    geometry.rows.src_begin, geometry.rows.src_size, geometry.columns.src_begin,
                    geometry.columns.src_size, shape.height, shape.width);
  }
  if (out_height == 0 || out_width == 0) return;
  if (stride < out_width ||
      static_cast<int64_t>(out.size()) < (out_height - 1) * stride + out_width) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "mask geometry: {} values cannot hold {} rows of {} values {} apart",
                    out.size(), out_height, out_width, stride);
  }
  // The stored column of each delivered column, flip included: computed once per sample, as
  // PyTorch computes its nearest indices once per axis.
  thread_local std::vector<int32_t> columns;
  columns.resize(static_cast<size_t>(out_width));
  for (int32_t x = 0; x < out_width; ++x) {
    const int32_t unflipped = geometry.flip ? static_cast<int32_t>(out_width) - 1 - x : x;
    columns[static_cast<size_t>(x)] = NearestSource(geometry.columns, unflipped);
  }
  int32_t previous_source = -2;  // no row yet
  for (int32_t y = 0; y < out_height; ++y) {
    T* row = out.data() + y * stride;
    const int32_t source = NearestSource(geometry.rows, y);
    if (source == previous_source) {
      // An enlarged mask repeats a stored row: the delivered row before is the same values.
      std::memcpy(row, row - stride, sizeof(T) * static_cast<size_t>(out_width));
      continue;
    }
    previous_source = source;
    if (source < 0) {
      std::fill(row, row + out_width, fill);
      continue;
    }
    const T* stored = mask.data() + source * shape.width;
    for (int64_t x = 0; x < out_width; ++x) {
      const int32_t column = columns[static_cast<size_t>(x)];
      row[x] = column < 0 ? fill : stored[column];
    }
  }
}

}  // namespace

void TransformMask(const SampleGeometry& geometry, std::span<const uint8_t> mask,
                   const MaskShape& shape, std::span<uint8_t> out, int64_t out_row_stride,
                   uint8_t fill) {
  Transform(geometry, mask, shape, out, out_row_stride, fill);
}

void TransformMask(const SampleGeometry& geometry, std::span<const uint16_t> mask,
                   const MaskShape& shape, std::span<uint16_t> out, int64_t out_row_stride,
                   uint16_t fill) {
  Transform(geometry, mask, shape, out, out_row_stride, fill);
}

}  // namespace h5feed::transform
