#pragma once
// One sample's normalization on the CPU: uint8 H x W x C (as stored and gathered) to the
// delivered image of an OutputSpec (float32, float16 or bfloat16, NCHW or NHWC, cropped,
// padded and flipped as its augmentation says), with NormalizePixel and the conversions of
// float_convert.h, so that a CPU batch equals the GPU kernel's bit for bit. Serial: the
// pipeline (pipeline/cpu_normalize.h) spreads rows and samples over its threads.
//
// Compiled with -ffp-contract=off (normalize.h: the multiply and the add stay two rounded
// operations).

#include <cstdint>

#include "h5feed/image_shape.h"
#include "transform/augment.h"
#include "transform/output_spec.h"

namespace h5feed::transform {

// Delivered rows [y_begin, y_end) of one sample: `image` is its H x W x C uint8, `dest` its
// spec.image_bytes() bytes (rows outside the range untouched). Throws Error(kUnsupported) for
// a channel count outside 1..4.
void NormalizeSampleRows(const uint8_t* image, const ImageShape& shape, const OutputSpec& spec,
                         const SampleTransform& transform, int64_t y_begin, int64_t y_end,
                         uint8_t* dest);

}  // namespace h5feed::transform
