#pragma once
// The kernels that carry a batch's fields on the device beside its images (docs/gpu.md,
// "Fields on the device"). Neither normalizes anything: the values delivered are the stored
// ones, moved.
//
//   GatherRows  an array field: delivered row i is input row order[i], byte for byte, as the
//               normalize kernel permutes the images of an echo copy.
//   CropMasks   a mask, for one view: each delivered sample's mask cropped, resized by nearest
//               neighbour and flipped with the geometry its image got (the same draws,
//               transform/sample_geometry.h: GeometryOf and NearestSource, the functions the
//               CPU path's TransformMask uses), so it equals the CPU path's mask pixel for
//               pixel. Padding shows `fill` (OutputOptions::mask_fill), as on the CPU. The
//               input masks have the slot's image shape: the stored masks of a file of one
//               image size, or, of a file of images at their own size, the masks cropped at
//               the gather into the views' rooms (loader/own_size_masks.h), whose windows the
//               views' specs name.

#include <cuda_runtime.h>

#include <cstdint>

#include "transform/augment.h"

namespace h5feed::cuda {

struct GatherLaunch {
  const uint8_t* in = nullptr;     // input rows, row_bytes each
  const int64_t* order = nullptr;  // delivered row i = input row order[i]
  uint8_t* out = nullptr;          // rows x row_bytes
  int64_t rows = 0;
  int64_t row_bytes = 0;
};

struct MaskLaunch {
  const uint8_t* masks = nullptr;    // input rows: height x width values each, packed
  const int64_t* indices = nullptr;  // dataset row of each input row (the draws' key)
  const int64_t* order = nullptr;    // delivered sample i = input row order[i]
  void* out = nullptr;               // rows x out_height x out_width values
  int64_t rows = 0;
  int64_t epoch = 0;
  int copy = 0;
  int32_t height = 0;  // the stored masks (their images' stored size)
  int32_t width = 0;
  int element_bytes = 1;             // 1: uint8, 2: uint16
  uint8_t fill = 0;                  // the padding's value (OutputViews::mask_fill)
  transform::AugmentParams augment;  // the view's: its draws, crop and delivered size
};

// Enqueue the kernels on `stream`. Throw Error(kCuda) when a launch fails.
void LaunchGatherRows(const GatherLaunch& launch, cudaStream_t stream);
void LaunchCropMasks(const MaskLaunch& launch, cudaStream_t stream);

}  // namespace h5feed::cuda
