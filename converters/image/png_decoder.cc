#include "image/png_decoder.h"

#include <spng.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "image/decode_checks.h"
#include "image/spng_context.h"
#include "make_error.h"

namespace h5feed::converters::image {
namespace {

constexpr std::string_view kPng = "PNG";

// A context reading `encoded`, with its header read and checked.
SpngContext OpenPng(std::span<const uint8_t> encoded, std::string_view name, spng_ihdr& ihdr) {
  SpngContext ctx = OpenSpng(encoded, kPng, name, ihdr);
  CheckImageSize(ihdr.height, ihdr.width, 3, kPng, name);
  return ctx;
}

// Decodes the file's own sample layout (SPNG_FMT_PNG: packed rows for depths below 8, 16-bit
// samples in host order) into the start of `rgb`, for expansion in place.
size_t DecodeNative(spng_ctx* ctx, std::string_view name, std::span<uint8_t> rgb) {
  size_t bytes = 0;
  int rc = spng_decoded_image_size(ctx, SPNG_FMT_PNG, &bytes);
  if (rc != 0) ThrowSpng(kPng, name, "unreadable header", rc);
  if (bytes > rgb.size()) {
    throw MakeError(ErrorCode::kInternal, "PNG samples of '{}' do not fit the RGB output", name);
  }
  rc = spng_decode_image(ctx, rgb.data(), bytes, SPNG_FMT_PNG, 0);
  if (rc != 0) ThrowSpng(kPng, name, "damaged or truncated image data", rc);
  return bytes;
}

// 16-bit gray: PIL's mode "I" clipped to 0..255 (see png_decoder.h). `samples` holds `width`
// host-order 16-bit values. Runs from the last pixel to the first so that it can expand in place:
// pixel x's samples start at byte 2x and its RGB at byte 3x, so no write reaches a sample that
// is still to be read (the trick libpng uses).
void ClipGray16Row(const uint8_t* samples, size_t width, uint8_t* rgb) {
  for (size_t x = width; x-- > 0;) {
    uint16_t v;
    std::memcpy(&v, samples + 2 * x, 2);
    const uint8_t clipped = static_cast<uint8_t>(std::min<uint16_t>(v, 255));
    rgb[3 * x] = rgb[3 * x + 1] = rgb[3 * x + 2] = clipped;
  }
}

// A palette looked up as PIL does. Pillow starts every palette as a gray ramp (entry i =
// (i, i, i), libImaging/Palette.c) and PLTE overwrites the first n entries, so an index past a
// short PLTE (invalid, but found in the wild) gives gray where libspng would give black.
struct Palette {
  uint8_t rgb[256][3];
  int depth = 8;  // bits per index
};

Palette ReadPalette(spng_ctx* ctx, const spng_ihdr& ihdr, std::string_view name) {
  spng_plte plte{};
  const int rc = spng_get_plte(ctx, &plte);
  if (rc != 0) ThrowSpng(kPng, name, "palette image without a usable PLTE chunk", rc);
  Palette palette;
  for (int i = 0; i < 256; ++i) {
    palette.rgb[i][0] = palette.rgb[i][1] = palette.rgb[i][2] = static_cast<uint8_t>(i);
  }
  for (uint32_t i = 0; i < plte.n_entries && i < 256; ++i) {
    palette.rgb[i][0] = plte.entries[i].red;
    palette.rgb[i][1] = plte.entries[i].green;
    palette.rgb[i][2] = plte.entries[i].blue;
  }
  palette.depth = ihdr.bit_depth;
  return palette;
}

// One row of packed indices (most significant bits first) to RGB, last pixel first, so that it
// can expand in place as ClipGray16Row does.
void ExpandPaletteRow(const uint8_t* indices, const Palette& palette, size_t width, uint8_t* rgb) {
  const int depth = palette.depth;
  const int mask = (1 << depth) - 1;
  for (size_t x = width; x-- > 0;) {
    const size_t bit = x * depth;
    const int index = (indices[bit / 8] >> (8 - depth - bit % 8)) & mask;
    rgb[3 * x] = palette.rgb[index][0];
    rgb[3 * x + 1] = palette.rgb[index][1];
    rgb[3 * x + 2] = palette.rgb[index][2];
  }
}

// How the file's rows become RGB: libspng's RGB8 output where it equals PIL's (gray replicated,
// bit replication for low bit depths, the high byte of 16-bit samples, alpha and tRNS ignored);
// the file's own samples (SPNG_FMT_PNG), expanded by us, for 16-bit gray and palettes.
enum class Expansion { kNone, kGray16, kPalette };

Expansion ExpansionOf(const spng_ihdr& ihdr) {
  if (ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE && ihdr.bit_depth == 16) {
    return Expansion::kGray16;
  }
  if (ihdr.color_type == SPNG_COLOR_TYPE_INDEXED) return Expansion::kPalette;
  return Expansion::kNone;
}

// A context for decoding `plan`'s image, its header checked against the plan.
SpngContext OpenForPlan(std::span<const uint8_t> encoded, const DecodePlan& plan,
                        std::string_view name, spng_ihdr& ihdr) {
  SpngContext ctx = OpenPng(encoded, name, ihdr);
  if (static_cast<int>(ihdr.height) != plan.height || static_cast<int>(ihdr.width) != plan.width) {
    throw MakeError(ErrorCode::kInternal, "PNG decode plan for '{}' does not match its header",
                    name);
  }
  return ctx;
}

// What libspng keeps besides the image: the ancillary chunks before the first IDAT (text, ICC
// profile, Exif), compressed ones inflated (zlib expands at most 1032-fold, and libspng's buffer
// doubles as it inflates), all within kMaxSpngChunkCacheBytes. Chunks past the end of `encoded` (a
// header read from the start of a file) count as the limit.
int64_t MetadataBytes(std::span<const uint8_t> encoded) {
  const auto read32 = [&](size_t at) {
    return uint32_t{encoded[at]} << 24 | uint32_t{encoded[at + 1]} << 16 |
           uint32_t{encoded[at + 2]} << 8 | uint32_t{encoded[at + 3]};
  };
  int64_t bytes = 0;
  for (size_t at = 8;;) {
    if (encoded.size() < 8 || at > encoded.size() - 8) return int64_t{kMaxSpngChunkCacheBytes};
    const int64_t length = read32(at);
    const std::string_view type(reinterpret_cast<const char*>(encoded.data()) + at + 4, 4);
    if (type == "IDAT" || type == "IEND") break;
    const bool compressed = type == "zTXt" || type == "iTXt" || type == "iCCP";
    if (type[0] >= 'a') bytes += compressed ? 2 * 1032 * length : length;  // ancillary
    if (bytes >= int64_t{kMaxSpngChunkCacheBytes}) return int64_t{kMaxSpngChunkCacheBytes};
    at += 12 + static_cast<size_t>(length);
  }
  return bytes;
}

}  // namespace

DecodePlan PlanPng(std::span<const uint8_t> encoded, std::string_view name) {
  spng_ihdr ihdr{};
  OpenPng(encoded, name, ihdr);
  DecodePlan plan;
  plan.format = Format::kPng;
  plan.full_height = plan.height = static_cast<int>(ihdr.height);
  plan.full_width = plan.width = static_cast<int>(ihdr.width);
  plan.rows_in_order = ihdr.interlace_method == SPNG_INTERLACE_NONE;
  // libspng's scanline buffers (four rows of at most 8 bytes a pixel), DecodePngRows's raw and
  // RGB rows, zlib's inflate state and window, and the metadata.
  const int64_t row = int64_t{plan.width} * 8 + 16;
  plan.scratch_bytes = 6 * row + (64 << 10) + MetadataBytes(encoded);
  return plan;
}

void DecodePng(std::span<const uint8_t> encoded, const DecodePlan& plan, std::string_view name,
               std::span<uint8_t> rgb) {
  spng_ihdr ihdr{};
  SpngContext ctx = OpenForPlan(encoded, plan, name, ihdr);
  const Expansion expansion = ExpansionOf(ihdr);
  if (expansion == Expansion::kNone) {
    const int rc = spng_decode_image(ctx.get(), rgb.data(), static_cast<size_t>(plan.bytes()),
                                     SPNG_FMT_RGB8, 0);
    if (rc != 0) ThrowSpng(kPng, name, "damaged or truncated image data", rc);
    return;
  }
  // The file's samples into the start of `rgb`, then expanded in place, last row first (row y's
  // samples end before byte 3 x width x y, where its RGB starts).
  const Palette palette =
      expansion == Expansion::kPalette ? ReadPalette(ctx.get(), ihdr, name) : Palette{};
  const size_t native_bytes = DecodeNative(ctx.get(), name, rgb);
  const size_t width = static_cast<size_t>(plan.width);
  const size_t row_bytes = native_bytes / static_cast<size_t>(plan.height);
  for (size_t y = static_cast<size_t>(plan.height); y-- > 0;) {
    const uint8_t* samples = rgb.data() + y * row_bytes;
    uint8_t* out = rgb.data() + y * width * 3;
    if (expansion == Expansion::kGray16) {
      ClipGray16Row(samples, width, out);
    } else {
      ExpandPaletteRow(samples, palette, width, out);
    }
  }
}

void DecodePngRows(std::span<const uint8_t> encoded, const DecodePlan& plan, std::string_view name,
                   const RowSink& sink) {
  spng_ihdr ihdr{};
  SpngContext ctx = OpenForPlan(encoded, plan, name, ihdr);
  if (ihdr.interlace_method != SPNG_INTERLACE_NONE) {
    throw MakeError(ErrorCode::kInternal, "'{}' is interlaced: its rows cannot be decoded in order",
                    name);
  }
  const Expansion expansion = ExpansionOf(ihdr);
  const Palette palette =
      expansion == Expansion::kPalette ? ReadPalette(ctx.get(), ihdr, name) : Palette{};
  const int format = expansion == Expansion::kNone ? SPNG_FMT_RGB8 : SPNG_FMT_PNG;
  size_t image_bytes = 0;
  int rc = spng_decoded_image_size(ctx.get(), format, &image_bytes);
  if (rc != 0) ThrowSpng(kPng, name, "unreadable header", rc);
  // Reads the chunks up to the image data, and the start of it.
  rc = spng_decode_image(ctx.get(), nullptr, 0, format, SPNG_DECODE_PROGRESSIVE);
  if (rc != 0) ThrowSpng(kPng, name, "damaged or truncated image data", rc);
  const size_t width = static_cast<size_t>(plan.width);
  std::vector<uint8_t> samples(image_bytes / static_cast<size_t>(plan.height));
  std::vector<uint8_t> expanded(expansion == Expansion::kNone ? 0 : width * 3);
  for (int y = 0; y < plan.height; ++y) {
    // libspng returns SPNG_EOI with the last row, and an error for damaged data.
    rc = spng_decode_row(ctx.get(), samples.data(), samples.size());
    if (rc != 0 && !(rc == SPNG_EOI && y == plan.height - 1)) {
      ThrowSpng(kPng, name, "damaged or truncated image data", rc);
    }
    if (expansion == Expansion::kGray16) {
      ClipGray16Row(samples.data(), width, expanded.data());
    } else if (expansion == Expansion::kPalette) {
      ExpandPaletteRow(samples.data(), palette, width, expanded.data());
    }
    sink(expansion == Expansion::kNone ? std::span<const uint8_t>(samples)
                                       : std::span<const uint8_t>(expanded));
  }
}

}  // namespace h5feed::converters::image
