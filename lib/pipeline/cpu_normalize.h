#pragma once
// Normalization on the CPU, for loaders that deliver host batches: uint8 NHWC (as stored and
// gathered) to float32, float16 or bfloat16 in NCHW or NHWC, with the augmentation of
// augment.h, using NormalizePixel and the conversions of float_convert.h so that a CPU batch
// equals the GPU kernel's bit for bit.

#include <cstdint>
#include <span>

#include "h5feed/image_shape.h"
#include "pipeline/normalize.h"
#include "pipeline/output_spec.h"

namespace h5feed::pipeline {

// Which draws a batch's samples take (augment.h): sample i is dataset row rows[i], echo copy
// `copy` of epoch `epoch`. rows may be empty when spec.augment.random() is false.
struct SampleKeys {
  int64_t epoch = 0;
  int copy = 0;
  std::span<const int64_t> rows;
};

// Delivered rows [y_begin, y_end) of one sample: `image` is its H x W x C uint8, `dest` its
// spec.image_bytes() bytes (rows outside the range untouched). Serial.
void NormalizeSampleRows(const uint8_t* image, const ImageShape& shape, const OutputSpec& spec,
                         const SampleTransform& transform, int64_t y_begin, int64_t y_end,
                         uint8_t* dest);

// Normalizes `images` images: src holds images x H x W x C bytes, dest images x
// spec.image_bytes(). Runs in parallel (tbb::parallel_for in the calling arena) over
// (image, delivered row) pairs, so one large image spreads over the workers as well as a
// batch of small ones. Throws Error(kInternal) when a span is too small, when
// spec.normalize.channels != C, or when augmentation needs keys.rows and it is short.
void NormalizeBatch(std::span<const uint8_t> src, const ImageShape& shape, int64_t images,
                    const OutputSpec& spec, const SampleKeys& keys, std::span<uint8_t> dest);

// The plain case: float32 NCHW, no augmentation (what normalize = true delivers by default).
void NormalizeBatch(std::span<const uint8_t> src, const ImageShape& shape, int64_t images,
                    const NormalizeParams& params, std::span<float> dest);

}  // namespace h5feed::pipeline
