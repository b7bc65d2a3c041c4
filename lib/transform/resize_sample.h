#pragma once
// The resize of one sample on the CPU (resize_taps.h's arithmetic, bit for bit the GPU
// kernel's): delivered rows of a resized crop or a resized-and-center-cropped image, rounded to
// uint8 as torchvision's uint8 tensor resize rounds them, before the flip and normalization
// (sample_normalize.h applies those to the rows this writes).
//
// Separable, as PyTorch computes it: per delivered row range, the horizontal taps and weights
// are computed once per delivered column and the vertical ones once per delivered row; the
// horizontal pass filters each stored row the range needs into floats, the vertical pass
// combines them, a delivered row at a time, into bytes. Scratch memory is per thread (reused: no
// allocation after a thread's first sample). Compiled with -ffp-contract=off.
//
// Both passes have SSE2 kernels (the x86-64 baseline the build targets) and AVX2 ones chosen at
// run time where the CPU has AVX2 (ResizeKernelsInUse); the AVX2 ones have twice the lanes and
// in each lane the same multiplies and adds in the same order, never fused, so every kernel
// gives the same bits: resize_taps.h's definition, the GPU kernel's.

#include <cstdint>

#include "h5feed/image_shape.h"
#include "transform/augment.h"

namespace h5feed::transform {

// Delivered rows [y_begin, y_end) (0 <= y_begin < y_end <= t.rows.out) of the resize that
// `t` describes (t.rows, t.columns), of `image` (shape.height x shape.width x C uint8): writes
// (y_end - y_begin) rows of t.columns.out x C bytes to `rows`, unflipped, each `row_stride`
// bytes after the one before (0: packed, t.columns.out x C). Thread-safe.
void ResizeSampleRows(const uint8_t* image, const ImageShape& shape, const SampleTransform& t,
                      bool antialias, int64_t y_begin, int64_t y_end, uint8_t* rows,
                      int64_t row_stride = 0);

// The kernels the resize runs: kAvx2 where the CPU has AVX2 (found once, at first use), else
// the build's baseline (SSE2 on x86-64).
enum class ResizeKernels { kBaseline, kAvx2 };
ResizeKernels ResizeKernelsInUse();

// For tests and benchmarks: run `kernels` from now on, in every thread. Returns false, changing
// nothing, for kAvx2 on a CPU without AVX2.
bool UseResizeKernels(ResizeKernels kernels);

}  // namespace h5feed::transform
