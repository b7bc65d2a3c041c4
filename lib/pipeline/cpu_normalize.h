#pragma once
// Normalization on the CPU, for loaders that deliver host batches: uint8 NHWC (as stored and
// gathered) to float32 NCHW (what torch models take), with NormalizePixel's arithmetic so a
// CPU batch equals the GPU kernel's bit for bit.

#include <cstdint>
#include <span>

#include "h5feed/image_shape.h"
#include "pipeline/normalize.h"

namespace h5feed::pipeline {

// Normalizes image rows [row_begin, row_end) of one image: `image` is H x W x C uint8,
// `dest` the image's C x H x W floats (rows outside the range untouched). Serial.
void NormalizeImageRows(const uint8_t* image, const ImageShape& shape, int64_t row_begin,
                        int64_t row_end, const NormalizeParams& params, float* dest);

// Normalizes `images` images: src holds images x H x W x C bytes, dest images x C x H x W
// floats. Runs in parallel (tbb::parallel_for in the calling arena) over (image, image row)
// pairs, so one large image spreads over the workers as well as a batch of small ones.
// Throws Error(kInvalidArgument) when a span is too small or params.channels != C.
void NormalizeBatch(std::span<const uint8_t> src, const ImageShape& shape, int64_t images,
                    const NormalizeParams& params, std::span<float> dest);

}  // namespace h5feed::pipeline
