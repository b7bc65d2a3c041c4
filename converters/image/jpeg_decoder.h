#pragma once
// JPEG decoding with libjpeg-turbo's TurboJPEG API, the library PIL itself links on Debian,
// with the same settings PIL uses (accurate integer IDCT, fancy upsampling), so full-size
// decodes equal PIL's pixel for pixel. CMYK and YCCK JPEGs are converted to RGB with PIL 9.4's
// arithmetic (see jpeg_decoder.cc).
//
// Thread-safety: each thread uses its own TurboJPEG handle, created on its first call and
// reused until the thread ends.

#include <cstdint>
#include <span>
#include <string_view>

#include "image/image_decoder.h"

namespace h5feed::converters::image {

// Reads the JPEG header. With min_height/min_width > 0, picks the smallest DCT scale among
// 1/2, 1/4 and 1/8 whose output is at least that large in both dimensions (none if full size
// is needed).
DecodePlan PlanJpeg(std::span<const uint8_t> encoded, std::string_view name, int min_height,
                    int min_width);

// Decodes at the plan's scale into `rgb` (plan.bytes() bytes, rows of plan.width * 3 bytes).
// A truncated file is an error; other libjpeg warnings are not, as in PIL (see the .cc).
void DecodeJpeg(std::span<const uint8_t> encoded, const DecodePlan& plan, std::string_view name,
                std::span<uint8_t> rgb);

}  // namespace h5feed::converters::image
