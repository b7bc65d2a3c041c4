#pragma once
// PNG decoding with libspng, giving exactly what PIL 9.4's Image.open(p).convert('RGB')
// gives for every PNG colour type and bit depth:
//   - gray 1/2/4/8-bit: scaled to 0..255 by bit replication and copied to R, G, B;
//   - gray 16-bit: PIL opens it as mode "I" (0..65535) and convert('RGB') CLIPS to 255, so
//     every value above 255 becomes white (not v >> 8);
//   - gray+alpha, RGB, RGBA at 16 bits: the high byte; alpha dropped, never composited;
//   - palette 1/2/4/8-bit: looked up, indices past a short palette giving gray (i, i, i) as in
//     PIL; tRNS ignored; gAMA, sBIT and iCCP ignored;
//   - Adam7-interlaced images like the rest.
// Verified against PIL in tests/converters/image/test_decode_matches_pil.py.
//
// libspng decodes every image: RGB8 output where it equals PIL's, the file's own samples
// expanded in place for palettes (PIL's gray-ramp default for short palettes) and 16-bit gray
// (PIL's clipping). Debian's libspng 0.7 unfilters Paeth rows a byte at a time, so PNG decodes
// at about half the speed it could; a hand-written faster row decoder was measured (1.9x) and
// not kept: decoding untrusted input is libspng's job.
//
// Thread-safety: every call creates its own libspng context (libspng 0.7 cannot reset one for
// reuse). Decoding writes straight into the caller's span, expanding in place where needed.
//
// A PNG that is not interlaced can also be decoded row by row (libspng's progressive decoding),
// for images too large to hold decoded: the rows are the same, expanded the same way.

#include <cstdint>
#include <span>
#include <string_view>

#include "image/image_decoder.h"

namespace h5feed::converters::image {

DecodePlan PlanPng(std::span<const uint8_t> encoded, std::string_view name);

// Decodes into `rgb` (plan.bytes() bytes). Truncated or damaged data (a bad CRC in a
// critical chunk, a short IDAT stream) is an error.
void DecodePng(std::span<const uint8_t> encoded, const DecodePlan& plan, std::string_view name,
               std::span<uint8_t> rgb);

// Decodes row by row into `sink` (plan.rows_in_order: not interlaced).
void DecodePngRows(std::span<const uint8_t> encoded, const DecodePlan& plan, std::string_view name,
                   const RowSink& sink);

}  // namespace h5feed::converters::image
