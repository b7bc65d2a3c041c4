#pragma once
// The normalize kernel: uint8 NHWC rows on the device to the delivered images (OutputSpec:
// float32, float16 or bfloat16, NCHW or NHWC, augmented per sample), with the per-pixel
// function, the conversions and the draws of transform/ (normalize.h, float_convert.h,
// augment.h), so its output equals the CPU path's bit for bit.
//
// One block per (delivered sample, group of 4 delivered rows): for each row the block reads
// the stored row segment it needs into shared memory with 16-byte loads (aligned down to 16
// bytes), then its threads write the row's elements at consecutive addresses (coalesced: NCHW
// one channel plane's row after another, NHWC interleaved). Echo copies permute rows
// on the device: delivered sample i is input row order[i].

#include <cuda_runtime.h>

#include <cstdint>

#include "transform/output_spec.h"

namespace h5feed::cuda {

struct NormalizeLaunch {
  const uint8_t* images = nullptr;   // input rows, H x W x C each; allocation padded by 16 bytes
  const int64_t* indices = nullptr;  // dataset row of each input row (the draws' key)
  const int64_t* order = nullptr;    // delivered sample i = input row order[i]; nullptr: i
  const int64_t* labels = nullptr;   // of the input rows; nullptr: no labels written
  int64_t* labels_out = nullptr;     // labels of the delivered samples
  void* out = nullptr;               // rows x spec.image_bytes()
  int64_t rows = 0;
  int64_t epoch = 0;
  int copy = 0;
  int64_t height = 0;  // stored images (C++17 here: no h5feed::ImageShape)
  int64_t width = 0;
  int64_t channels = 0;
  transform::OutputSpec spec;
};

// Bytes of shared memory one block needs: the widest stored row segment, plus alignment slack.
size_t NormalizeSharedBytes(int64_t channels, const transform::OutputSpec& spec);

// Enqueues the kernel on `stream`. Throws Error(kUnsupported) when a delivered row does not fit
// a block's shared memory (48 KiB: images wider than ~16,000 RGB pixels), Error(kCuda) when the
// launch fails.
void LaunchNormalize(const NormalizeLaunch& launch, cudaStream_t stream);

}  // namespace h5feed::cuda
