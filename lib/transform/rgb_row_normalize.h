#pragma once
// One row of interleaved RGB bytes into three planes of normalized floats, the most common
// delivered form (float32 NCHW of RGB images): plane c gets NormalizePixel(pixel's channel c),
// each value the same multiply then add as normalize.h's, so the same bits as the per-element
// path and the GPU kernel. Reads the row with whole 16-byte loads and separates the channels in
// registers: the per-element path's loads are strided by 3, a byte at a time.
//
// Thread-safe: a pure function of its arguments.

#include <cstdint>

namespace h5feed::transform {

// For x in [0, n): planes[c][x] = NormalizePixel(pixels[3 * x + c], scale[c], bias[c]), or,
// mirrored, NormalizePixel(pixels[-3 * x + c], ...) (pixels then points at the pixel of x = 0,
// the rightmost one read). The planes must not overlap the pixels.
void NormalizeRgbRow(const uint8_t* pixels, int64_t n, bool mirrored, const float scale[3],
                     const float bias[3], float* const planes[3]);

}  // namespace h5feed::transform
