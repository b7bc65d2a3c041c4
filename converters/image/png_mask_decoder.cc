#include "image/png_mask_decoder.h"

#include <spng.h>

#include <cstring>
#include <memory>
#include <string>

#include "h5feed/error.h"
#include "image/decode_checks.h"
#include "image/spng_context.h"
#include "make_error.h"

namespace h5feed::converters::image {
namespace {

constexpr std::string_view kPngMask = "PNG mask";

// The bytes of one class id, or 0 for a colour type that holds none.
int ValueBytes(const spng_ihdr& ihdr) {
  if (ihdr.color_type == SPNG_COLOR_TYPE_INDEXED) return 1;
  if (ihdr.color_type != SPNG_COLOR_TYPE_GRAYSCALE) return 0;
  // 1-bit gray is a binary mask (PIL's mode "1": np.array gives 0 and 1). 2- and 4-bit gray
  // are not taken: PIL reads them as 8-bit gray scaled to 0..255, so which values are the
  // classes would be a guess.
  if (ihdr.bit_depth == 1 || ihdr.bit_depth == 8) return 1;
  if (ihdr.bit_depth == 16) return 2;
  return 0;
}

// Why a PNG of `ihdr` holds no class ids, for the error.
std::string Refusal(const spng_ihdr& ihdr) {
  constexpr std::string_view kTaken =
      "a mask is a palette PNG (its indices are the classes), a 1-bit gray PNG (0 and 1), or "
      "an 8- or 16-bit gray PNG (Cityscapes: the *_labelIds.png files, not *_color.png)";
  if (ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE) {
    return fmt::format(
        "{}-bit gray holds values that PIL scales to 0..255, not class ids: {}; "
        "save it as 8-bit gray (PIL mode \"L\") or palette (\"P\")",
        ihdr.bit_depth, kTaken);
  }
  const char* kind = ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA ? "gray with alpha"
                     : ihdr.color_type == SPNG_COLOR_TYPE_TRUECOLOR     ? "RGB"
                                                                        : "RGBA";
  return fmt::format("{} (colour type {} at {} bits) holds colours, not class ids: {}", kind,
                     ihdr.color_type, ihdr.bit_depth, kTaken);
}

// Unpacks palette indices or gray values of `depth` < 8 bits (most significant bits first), last
// pixel first, so that a row expands in place: pixel x's bits lie at or before byte x.
void UnpackRow(uint8_t* row, size_t width, int depth) {
  const int mask = (1 << depth) - 1;
  for (size_t x = width; x-- > 0;) {
    const size_t bit = x * depth;
    row[x] = static_cast<uint8_t>((row[bit / 8] >> (8 - depth - bit % 8)) & mask);
  }
}

}  // namespace

MaskHeader ReadPngMaskHeader(std::span<const uint8_t> encoded, std::string_view name) {
  // libspng refuses an empty buffer as an invalid argument, which says nothing of the file.
  if (encoded.empty()) ThrowCorrupt(kPngMask, name, "the file is empty");
  spng_ihdr ihdr{};
  const SpngContext ctx = OpenSpng(encoded, kPngMask, name, ihdr);
  const int value_bytes = ValueBytes(ihdr);
  if (value_bytes == 0) ThrowCorrupt(kPngMask, name, Refusal(ihdr));
  CheckImageSize(ihdr.height, ihdr.width, value_bytes, kPngMask, name);
  return {static_cast<int>(ihdr.height), static_cast<int>(ihdr.width), value_bytes};
}

void DecodePngMask(std::span<const uint8_t> encoded, const MaskHeader& header,
                   std::string_view name, std::span<uint8_t> out) {
  spng_ihdr ihdr{};
  const SpngContext ctx = OpenSpng(encoded, kPngMask, name, ihdr);
  if (static_cast<int>(ihdr.height) != header.height ||
      static_cast<int>(ihdr.width) != header.width || ValueBytes(ihdr) != header.value_bytes) {
    ThrowCorrupt(kPngMask, name, "its header changed since it was first read");
  }
  if (out.size() != static_cast<size_t>(header.bytes())) {
    throw MakeError(ErrorCode::kInternal, "mask '{}' needs {} bytes, given {}", name,
                    header.bytes(), out.size());
  }
  size_t bytes = 0;
  int rc = spng_decoded_image_size(ctx.get(), SPNG_FMT_PNG, &bytes);
  if (rc != 0) ThrowSpng(kPngMask, name, "unreadable header", rc);
  if (bytes > out.size()) {
    throw MakeError(ErrorCode::kInternal, "PNG samples of '{}' do not fit the mask", name);
  }
  // SPNG_FMT_PNG: the file's own samples, 16-bit ones in host order, rows of fewer than 8
  // bits packed (row r's packed bytes at r * row_bytes, before its unpacked place).
  rc = spng_decode_image(ctx.get(), out.data(), bytes, SPNG_FMT_PNG, 0);
  if (rc != 0) ThrowSpng(kPngMask, name, "damaged or truncated image data", rc);
  if (ihdr.bit_depth >= 8) return;
  const size_t width = static_cast<size_t>(header.width);
  const size_t row_bytes = bytes / static_cast<size_t>(header.height);
  // Last row first: row r's packed bytes start at r * row_bytes <= r * width, so an unpacked
  // row never overwrites a packed row still to be read.
  for (size_t r = static_cast<size_t>(header.height); r-- > 0;) {
    uint8_t* row = out.data() + r * width;
    if (r * row_bytes != r * width) std::memmove(row, out.data() + r * row_bytes, row_bytes);
    UnpackRow(row, width, ihdr.bit_depth);
  }
}

}  // namespace h5feed::converters::image
