#pragma once
// Decodes an encoded image (JPEG, PNG, WebP, BMP, PPM/PGM, TIFF) to 8-bit RGB, channels last,
// exactly as PIL's Image.open(p).convert('RGB') would for JPEG, PNG and WebP: grayscale is
// replicated, palettes expanded, alpha dropped (not composited), CMYK converted as PIL does,
// 16-bit reduced as PIL does. Thread-safe: every call uses its own (or a thread-local) decoder
// state.

#include <cstdint>
#include <functional>
#include <span>
#include <string_view>

namespace h5feed::converters::image {

enum class Format { kJpeg, kPng, kWebp, kOther /* BMP, PNM, TIFF: through OpenCV */ };

// What the decoder will produce for a given request: the size of the decoded RGB image, and
// what decoding it costs in memory.
struct DecodePlan {
  Format format = Format::kOther;
  int height = 0;  // of the decoded image (after any JPEG DCT scaling)
  int width = 0;
  int full_height = 0;  // of the image as stored
  int full_width = 0;
  // An upper estimate of what the decoder allocates while decoding, beyond the output and the
  // encoded bytes: row buffers, a progressive JPEG's coefficients, a lossless WebP's ARGB
  // image, OpenCV's own copy, PNG metadata. Freed when Decode or DecodeRows returns.
  int64_t scratch_bytes = 0;
  // Whether DecodeRows can hand the rows out top to bottom without holding the image
  // (a PNG that is not interlaced).
  bool rows_in_order = false;
  int64_t bytes() const { return int64_t{height} * width * 3; }
};

// Reads the header and plans the decode. `min_height`/`min_width` (0 = no reduction) let a
// JPEG decode at a reduced DCT scale (1/2, 1/4, 1/8...) as long as the decoded image stays at
// least that large in both dimensions. Throws Error(kCorrupt) when the bytes are not a
// readable image, naming `name` (the file path) in the message.
DecodePlan PlanDecode(std::span<const uint8_t> encoded, std::string_view name, int min_height = 0,
                      int min_width = 0);

// Decodes into `rgb`, which holds plan.bytes() bytes. Throws Error(kCorrupt) for truncated or
// damaged data, naming `name`.
void Decode(std::span<const uint8_t> encoded, const DecodePlan& plan, std::string_view name,
            std::span<uint8_t> rgb);

// Receives the decoded rows, top to bottom, each plan.width RGB pixels; valid during the call.
using RowSink = std::function<void(std::span<const uint8_t> rgb_row)>;

// Decodes row by row into `sink`, holding a few rows rather than the image (the pixels are
// Decode's). Requires plan.rows_in_order (Error(kInternal) otherwise). Throws Error(kCorrupt)
// for damaged data, possibly after some rows were delivered.
void DecodeRows(std::span<const uint8_t> encoded, const DecodePlan& plan, std::string_view name,
                const RowSink& sink);

}  // namespace h5feed::converters::image
