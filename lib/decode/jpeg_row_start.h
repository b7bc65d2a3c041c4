#pragma once
// Starting a JPEG's decoding at one of its rows without entropy-decoding the rows above.
//
// A sequential Huffman JPEG with a restart marker after every row of MCUs (what h5feed's
// converter writes: converters/image/jpeg_encoder.h) holds each MCU row's entropy-coded data
// after a marker, the DC predictions reset: decoding can begin at any MCU row. libjpeg-turbo
// 2.1 cannot seek (jpeg_skip_scanlines entropy-decodes every row it skips, which is over half of
// a whole decode of a photo), so the decoder is given a JPEG of its own instead: the same
// headers with the frame's height reduced, then the entropy-coded data from that row's marker
// on, the later markers renumbered from RST0 (a decoder checks their sequence). Its rows are
// the original's, decoded the same way, except the first, where chroma is subsampled
// vertically (4:2:0): fancy upsampling blends each pixel row's chroma with the chroma row above,
// and takes the cut's first chroma row for the image's top edge. Such a cut therefore starts
// at an MCU row above the first row wanted, other cuts at the MCU row holding it.
//
// Thread-safety: a pure function; `out` is the caller's.

#include <cstdint>
#include <span>
#include <vector>

namespace h5feed::decode {

// Writes to `out` the JPEG of `jpeg`'s rows from the last MCU row boundary above pixel row `row`
// (at or above it when chroma is not subsampled vertically) down, and returns how many pixel
// rows it leaves out above (a multiple of the MCU height): rows from `row` on decode as in
// `jpeg`, at every DCT scale 1/s for which `row` is a multiple of s. Returns 0, `out`
// unspecified, when that would leave out nothing (that boundary is the image's top) or `jpeg`
// is not such a file: its frame is not `height` x `width`,
// it is progressive, lossless or arithmetic-coded, has several scans, no restart interval of
// one MCU row, or markers missing or out of sequence (damaged data, which a whole decode then
// reports). Never reads outside `jpeg`.
int64_t CutAboveRow(std::span<const uint8_t> jpeg, int64_t height, int64_t width, int64_t row,
                    std::vector<uint8_t>& out);

}  // namespace h5feed::decode
