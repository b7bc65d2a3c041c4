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
// the original's, decoded the same way, except the first MCU row's: fancy upsampling takes it
// for the image's top edge, so the cut starts one MCU row above the first row wanted.
//
// Thread-safety: a pure function; `out` is the caller's.

#include <cstdint>
#include <span>
#include <vector>

namespace h5feed::decode {

// Writes to `out` the JPEG of `jpeg`'s rows from the MCU row above the one holding pixel row
// `row` down, and returns how many pixel rows it leaves out above (a multiple of the MCU
// height). Returns 0, `out` unspecified, when that would not leave out anything worth it (`row`
// in the first two MCU rows) or `jpeg` is not such a file: its frame is not `height` x `width`,
// it is progressive, lossless or arithmetic-coded, has several scans, no restart interval of
// one MCU row, or markers missing or out of sequence (damaged data, which a whole decode then
// reports). Never reads outside `jpeg`.
int64_t CutAboveRow(std::span<const uint8_t> jpeg, int64_t height, int64_t width, int64_t row,
                    std::vector<uint8_t>& out);

}  // namespace h5feed::decode
