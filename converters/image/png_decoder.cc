#include "image/png_decoder.h"

#include <spng.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "h5feed/error.h"
#include "image/decode_checks.h"

namespace h5feed::image {
namespace {

constexpr std::string_view kFormat = "PNG";

// Caps on ancillary chunks (text, ICC profiles) so a hostile file cannot make libspng buffer
// gigabytes; real files carry at most a few MiB of metadata.
constexpr size_t kMaxChunkBytes = size_t{64} << 20;
constexpr size_t kMaxChunkCacheBytes = size_t{128} << 20;

struct ContextDeleter {
  void operator()(spng_ctx* ctx) const { spng_ctx_free(ctx); }
};
using Context = std::unique_ptr<spng_ctx, ContextDeleter>;

[[noreturn]] void ThrowSpng(std::string_view name, std::string_view what, int code) {
  ThrowCorrupt(kFormat, name, std::string(what) + " (libspng: " + spng_strerror(code) + ")");
}

// A context reading `encoded`, with its header read and checked.
Context OpenPng(std::span<const uint8_t> encoded, std::string_view name, spng_ihdr& ihdr) {
  Context ctx(spng_ctx_new(0));
  if (!ctx) throw Error(ErrorCode::kInternal, "cannot create a libspng context (out of memory?)");
  int rc = spng_set_png_buffer(ctx.get(), encoded.data(), encoded.size());
  if (rc == 0) rc = spng_set_image_limits(ctx.get(), kMaxImageSide, kMaxImageSide);
  if (rc == 0) rc = spng_set_chunk_limits(ctx.get(), kMaxChunkBytes, kMaxChunkCacheBytes);
  if (rc != 0) ThrowSpng(name, "cannot set up the decoder", rc);
  rc = spng_get_ihdr(ctx.get(), &ihdr);
  if (rc != 0) ThrowSpng(name, "unreadable header", rc);
  CheckImageSize(ihdr.height, ihdr.width, 3, kFormat, name);
  return ctx;
}

// Decodes the file's own sample layout (SPNG_FMT_PNG: packed rows for depths below 8, 16-bit
// samples in host order) into the start of `rgb`, for expansion in place.
size_t DecodeNative(spng_ctx* ctx, std::string_view name, std::span<uint8_t> rgb) {
  size_t bytes = 0;
  int rc = spng_decoded_image_size(ctx, SPNG_FMT_PNG, &bytes);
  if (rc != 0) ThrowSpng(name, "unreadable header", rc);
  if (bytes > rgb.size()) {
    throw Error(ErrorCode::kInternal, "PNG samples of '" + std::string(name) +
                                          "' do not fit the RGB output");
  }
  rc = spng_decode_image(ctx, rgb.data(), bytes, SPNG_FMT_PNG, 0);
  if (rc != 0) ThrowSpng(name, "damaged or truncated image data", rc);
  return bytes;
}

// Both expansions below run in place, from the last pixel to the first: pixel p's samples
// start at or before byte 2p and its RGB starts at byte 3p, so no write reaches a sample that
// is still to be read (the trick libpng uses), and no scratch buffer is needed.

// 16-bit gray: PIL's mode "I" clipped to 0..255 (see png_decoder.h).
void DecodeGray16(spng_ctx* ctx, const DecodePlan& plan, std::string_view name,
                  std::span<uint8_t> rgb) {
  DecodeNative(ctx, name, rgb);
  const size_t pixels = static_cast<size_t>(plan.height) * plan.width;
  for (size_t p = pixels; p-- > 0;) {
    uint16_t v;
    std::memcpy(&v, rgb.data() + 2 * p, 2);
    const uint8_t clipped = static_cast<uint8_t>(std::min<uint16_t>(v, 255));
    rgb[3 * p] = rgb[3 * p + 1] = rgb[3 * p + 2] = clipped;
  }
}

// Palette images, looked up as PIL does. Pillow starts every palette as a gray ramp (entry i
// = (i, i, i), libImaging/Palette.c) and PLTE overwrites the first n entries, so an index past
// a short PLTE (invalid, but found in the wild) gives gray where libspng would give black.
void DecodePalette(spng_ctx* ctx, const spng_ihdr& ihdr, const DecodePlan& plan,
                   std::string_view name, std::span<uint8_t> rgb) {
  spng_plte plte{};
  const int rc = spng_get_plte(ctx, &plte);
  if (rc != 0) ThrowSpng(name, "palette image without a usable PLTE chunk", rc);
  uint8_t table[256][3];
  for (int i = 0; i < 256; ++i) table[i][0] = table[i][1] = table[i][2] = static_cast<uint8_t>(i);
  for (uint32_t i = 0; i < plte.n_entries && i < 256; ++i) {
    table[i][0] = plte.entries[i].red;
    table[i][1] = plte.entries[i].green;
    table[i][2] = plte.entries[i].blue;
  }
  DecodeNative(ctx, name, rgb);
  const int depth = ihdr.bit_depth;
  const size_t width = static_cast<size_t>(plan.width);
  const size_t row_bytes = (width * depth + 7) / 8;
  const int mask = (1 << depth) - 1;
  for (size_t y = static_cast<size_t>(plan.height); y-- > 0;) {
    const uint8_t* row = rgb.data() + y * row_bytes;
    uint8_t* out = rgb.data() + y * width * 3;
    for (size_t x = width; x-- > 0;) {
      const size_t bit = x * depth;  // samples are packed from the most significant bit
      const int index = (row[bit / 8] >> (8 - depth - bit % 8)) & mask;
      out[3 * x] = table[index][0];
      out[3 * x + 1] = table[index][1];
      out[3 * x + 2] = table[index][2];
    }
  }
}

}  // namespace

DecodePlan PlanPng(std::span<const uint8_t> encoded, std::string_view name) {
  spng_ihdr ihdr{};
  OpenPng(encoded, name, ihdr);
  DecodePlan plan;
  plan.format = Format::kPng;
  plan.full_height = plan.height = static_cast<int>(ihdr.height);
  plan.full_width = plan.width = static_cast<int>(ihdr.width);
  return plan;
}

void DecodePng(std::span<const uint8_t> encoded, const DecodePlan& plan, std::string_view name,
               std::span<uint8_t> rgb) {
  spng_ihdr ihdr{};
  Context ctx = OpenPng(encoded, name, ihdr);
  if (static_cast<int>(ihdr.height) != plan.height || static_cast<int>(ihdr.width) != plan.width) {
    throw Error(ErrorCode::kInternal,
                "PNG decode plan for '" + std::string(name) + "' does not match its header");
  }
  if (ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE && ihdr.bit_depth == 16) {
    DecodeGray16(ctx.get(), plan, name, rgb);
    return;
  }
  if (ihdr.color_type == SPNG_COLOR_TYPE_INDEXED) {
    DecodePalette(ctx.get(), ihdr, plan, name, rgb);
    return;
  }
  // Everything else: libspng's RGB8 output is what PIL gives: gray replicated, bit
  // replication for low bit depths, the high byte of 16-bit samples, alpha and tRNS ignored.
  const int rc = spng_decode_image(ctx.get(), rgb.data(), static_cast<size_t>(plan.bytes()),
                                   SPNG_FMT_RGB8, 0);
  if (rc != 0) ThrowSpng(name, "damaged or truncated image data", rc);
}

}  // namespace h5feed::image
