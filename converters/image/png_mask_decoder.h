#pragma once
// Segmentation masks stored as PNG files (Pascal VOC's SegmentationClass/, ADE20K's and
// Cityscapes' annotations), decoded to the class id of each pixel, never to colours:
//   - a palette image (1, 2, 4 or 8 bits): its palette indices, as PIL's
//     np.array(Image.open(p)) of a mode "P" image gives them (the palette, which only colours
//     the classes for people, is ignored);
//   - a 1-bit gray image: its values, 0 and 1 (a binary mask; PIL's mode "1", whose array is
//     False and True);
//   - an 8-bit gray image: its values (mode "L");
//   - a 16-bit gray image: its values as uint16 (mode "I;16"), for more than 256 classes.
// Anything else (RGB or RGBA colour masks, gray with alpha, 2- or 4-bit gray, which PIL
// scales to 0..255) holds no class ids: refused as Error(kCorrupt), which a conversion
// records and skips like a broken image, saying which masks it takes.
//
// Thread-safety: every call creates its own libspng context; a pure function of its arguments.

#include <cstdint>
#include <span>
#include <string_view>

namespace h5feed::converters::image {

struct MaskHeader {
  int height = 0;
  int width = 0;
  int value_bytes = 1;  // 1: uint8 class ids; 2: uint16

  int64_t bytes() const { return int64_t{height} * width * value_bytes; }
};

// The header of the PNG mask `encoded` (only its first bytes are needed: the IHDR chunk is
// the first). Throws Error(kCorrupt) naming `name` for an unreadable header or a colour type
// that holds no class ids.
MaskHeader ReadPngMaskHeader(std::span<const uint8_t> encoded, std::string_view name);

// Decodes the whole file `encoded` into `out`: header.bytes() bytes, height rows of width
// values, uint16 values in host order. Throws Error(kCorrupt) naming `name` for a damaged file
// or one whose header is not `header`.
void DecodePngMask(std::span<const uint8_t> encoded, const MaskHeader& header,
                   std::string_view name, std::span<uint8_t> out);

}  // namespace h5feed::converters::image
