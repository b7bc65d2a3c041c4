#pragma once
// The fused resize kernel: for views that resize (a random resized crop, or the validation
// resize then center crop), crop, resize, round, flip, normalize, convert and lay out in one
// pass over the gathered uint8 images, with the functions of transform/ (resize_taps.h,
// augment.h, normalize.h, float_convert.h), so its output equals the CPU path's
// (resize_sample.cc then sample_normalize.cc) bit for bit.
//
// One block per (delivered sample, tile of 16 delivered rows x 32 delivered columns). Thread 0
// draws the sample's transform (its crop box and flip); the block computes the tile's
// horizontal taps (one set per delivered column, at its flipped position) and vertical taps in
// shared memory, then, for groups of its rows, filters the stored rows they need horizontally
// into shared memory (floats) and combines them vertically, writing each delivered element
// once: NCHW a channel plane's tile row after another (32 consecutive floats), NHWC 32 x C
// interleaved; both coalesced. The stored pixels are read through the L1 cache: a tile's
// window of a stored row is a few hundred bytes.

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/normalize_kernel.h"
#include "transform/output_spec.h"

namespace h5feed::cuda {

// What a view's launch needs, worked out on the host from the worst case its boxes allow (the
// whole stored image for a random resized crop).
struct ResizePlan {
  int max_column_taps = 0;
  int max_row_taps = 0;
  int group_rows = 0;     // delivered rows filtered at once (1 .. 16)
  int filtered_rows = 0;  // stored rows a group needs at most
  size_t shared_bytes = 0;
};

// Throws Error(kUnsupported) when the view shrinks so much (about 40x in one axis) that even
// one delivered row's taps do not fit a block's 48 KiB of shared memory.
ResizePlan PlanResize(int64_t height, int64_t width, int64_t channels,
                      const transform::OutputSpec& spec);

// Enqueues the kernel for a resizing view (launch.spec.augment.resizes()) on `stream`.
// Throws as PlanResize, and Error(kCuda) when the launch fails.
void LaunchResize(const NormalizeLaunch& launch, cudaStream_t stream);

}  // namespace h5feed::cuda
