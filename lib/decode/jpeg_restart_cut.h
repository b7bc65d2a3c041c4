#pragma once
// Cutting a JPEG down to the part around a box without entropy-decoding the rest.
//
// A sequential Huffman JPEG whose restart interval splits every row of MCUs into segments of
// whole MCUs (what h5feed's converter writes: a marker after every 2 MCUs, or every MCU in rows
// of an odd count; converters/image/jpeg_encoder.h) holds each segment's entropy-coded data
// between two markers, the DC predictions reset: decoding can begin at any segment. libjpeg-turbo
// 2.1 cannot seek (jpeg_skip_scanlines and jpeg_crop_scanline entropy-decode every MCU they
// leave out, which is over half of decoding a photo), so the decoder is given a JPEG of its own
// instead: the same headers with the frame reduced to the MCU rows and segments around the box,
// then those segments' data, a row's segments as they are stored, a marker between every two,
// all renumbered from RST0 (a decoder checks their sequence).
//
// Its pixels are the original's, decoded the same way, except at its edges where chroma is
// subsampled: fancy upsampling blends each pixel's chroma with the neighbouring chroma row or
// column and takes the cut's edges for the image's. The cut therefore keeps at least one pixel
// beyond the box on each side along which chroma is subsampled (rows at 4:2:0, columns at 4:2:0
// and 4:2:2), unless the box reaches the image's edge there. A JPEG with a marker after every
// MCU row (h5feed's converter before segments) is a JPEG of one segment per row: it is cut in
// rows only.
//
// Thread-safety: a pure function; `out` is the caller's.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "decode/pixel_region.h"

namespace h5feed::decode {

// Writes to `out` the JPEG of the MCU rows and segments of `jpeg` (a `height` x `width` image)
// around `box`, and returns the part of the image it holds: the pixels of `box` decode from it
// as from `jpeg`, at every DCT scale 1/s at which the box's sides are multiples of s or the
// image's edges. Returns nullopt, `out` unspecified, when that part would be the whole image or
// `jpeg` is not such a file: its frame is not `height` x `width`, it is progressive, lossless or
// arithmetic-coded, has several scans, has no restart interval that divides its MCU rows (nor
// is one row), or has markers missing or out of sequence before the part's end (damaged data,
// which a whole decode then reports). An empty box or one outside the image gives nullopt.
// Never reads outside `jpeg`.
std::optional<PixelBox> CutAroundBox(std::span<const uint8_t> jpeg, int64_t height, int64_t width,
                                     const PixelBox& box, std::vector<uint8_t>& out);

}  // namespace h5feed::decode
