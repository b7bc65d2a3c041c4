#pragma once
// A libspng context over one encoded PNG, set up and its header read as every PNG reader here
// needs it (the image decoder, png_decoder.cc, and the mask decoder, png_mask_decoder.cc):
// images of any side PNG allows (the callers check kMaxImageSide), and caps on ancillary chunks
// (text, ICC profiles) so a hostile file cannot make libspng buffer gigabytes; real files carry at
// most a few MiB of metadata. Included by those .cc files only: the converters' own headers name no
// library.

#include <spng.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

namespace h5feed::converters::image {

// The PNG specification's largest side, 2^31 - 1 (libspng refuses larger limits).
inline constexpr uint32_t kPngMaxSide = 0x7FFFFFFF;
inline constexpr size_t kMaxSpngChunkBytes = size_t{64} << 20;
inline constexpr size_t kMaxSpngChunkCacheBytes = size_t{128} << 20;

struct SpngContextDeleter {
  void operator()(spng_ctx* ctx) const { spng_ctx_free(ctx); }
};
using SpngContext = std::unique_ptr<spng_ctx, SpngContextDeleter>;

// Error(kCorrupt) naming the file `name` of kind `kind` ("PNG", "PNG mask"), what failed and
// libspng's reason for `code`.
[[noreturn]] void ThrowSpng(std::string_view kind, std::string_view name, std::string_view what,
                            int code);

// A context reading `encoded`, with its header read into `ihdr`. Throws as ThrowSpng, and
// Error(kInternal) when no context can be made.
SpngContext OpenSpng(std::span<const uint8_t> encoded, std::string_view kind, std::string_view name,
                     spng_ihdr& ihdr);

}  // namespace h5feed::converters::image
