#pragma once
// A sample's geometry as one thread of a block draws it and every thread of the block then
// reads it, in plain fields: shared variables cannot have the constructors transform's structs
// have. Used by the resize kernel (a sample's tiles) and the mask kernel (a sample's mask).

#include <cstdint>

#include "transform/sample_geometry.h"

namespace h5feed::cuda {

struct SharedGeometry {
  int32_t rows[5];  // ResizeAxis fields: src_begin, src_size, resized, offset, out
  int32_t columns[5];
  int32_t flip;

  // From anything with rows, columns (ResizeAxis) and flip: a SampleTransform, a
  // SampleGeometry.
  template <typename Drawn>
  __device__ void Set(const Drawn& drawn) {
    Store(drawn.rows, rows);
    Store(drawn.columns, columns);
    flip = drawn.flip ? 1 : 0;
  }
  __device__ transform::ResizeAxis row_axis() const { return Axis(rows); }
  __device__ transform::ResizeAxis column_axis() const { return Axis(columns); }

 private:
  __device__ static transform::ResizeAxis Axis(const int32_t* f) {
    transform::ResizeAxis axis;
    axis.src_begin = f[0];
    axis.src_size = f[1];
    axis.resized = f[2];
    axis.offset = f[3];
    axis.out = f[4];
    return axis;
  }
  __device__ static void Store(const transform::ResizeAxis& axis, int32_t* f) {
    f[0] = axis.src_begin;
    f[1] = axis.src_size;
    f[2] = axis.resized;
    f[3] = axis.offset;
    f[4] = axis.out;
  }
};

}  // namespace h5feed::cuda
