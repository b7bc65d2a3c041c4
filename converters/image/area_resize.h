#pragma once
// Shrinks an 8-bit RGB image by area averaging: each output pixel is the mean of the source
// area it covers, partly covered pixels weighted by their coverage. This is OpenCV's
// INTER_AREA (results within 1 of cv::resize), separable and in fixed point: OpenCV 4.6 runs
// INTER_AREA at non-integer ratios through a float path that takes ~1 ms for 300x300 ->
// 224x224, longer than decoding the JPEG; this takes about a tenth of that.
//
// Thread-safety: reentrant; scratch rows are per thread and reused.

#include <cstddef>
#include <cstdint>

namespace h5feed::image {

// `src` is src_height x src_width RGB with rows `src_stride` bytes apart; `dst` likewise.
// Requires 1 <= dst_height <= src_height and 1 <= dst_width <= src_width (an axis of equal
// size is copied unchanged along that axis).
void AreaResize(const uint8_t* src, int src_height, int src_width, size_t src_stride,
                uint8_t* dst, int dst_height, int dst_width, size_t dst_stride);

}  // namespace h5feed::image
