// ThrowSpng and OpenSpng (spng_context.h).
#include "image/spng_context.h"

#include <fmt/format.h>

#include "h5feed/error.h"
#include "image/decode_checks.h"

namespace h5feed::converters::image {

void ThrowSpng(std::string_view kind, std::string_view name, std::string_view what, int code) {
  if (code == SPNG_ECHUNK_LIMITS) {
    // The chunk limits stop metadata that inflates past them (a zTXt or iCCP bomb), which is
    // neither damage nor truncation, whatever the call that met it was doing.
    ThrowCorrupt(
        kind, name,
        fmt::format("its metadata chunks (text, ICC profile, ...) hold more than {} MiB "
                    "(or {} MiB together) once decompressed, as a decompression bomb's "
                    "do (libspng: {})",
                    kMaxSpngChunkBytes >> 20, kMaxSpngChunkCacheBytes >> 20, spng_strerror(code)));
  }
  ThrowCorrupt(kind, name, fmt::format("{} (libspng: {})", what, spng_strerror(code)));
}

SpngContext OpenSpng(std::span<const uint8_t> encoded, std::string_view kind, std::string_view name,
                     spng_ihdr& ihdr) {
  SpngContext ctx(spng_ctx_new(0));
  if (!ctx) throw Error(ErrorCode::kInternal, "cannot create a libspng context (out of memory?)");
  int rc = spng_set_png_buffer(ctx.get(), encoded.data(), encoded.size());
  // libspng's own largest sides (the PNG limit, 2^31 - 1): the callers check kMaxImageSide
  // with CheckImageSize, whose message says the limit is h5feed's, where libspng's ("image
  // width exceeds user limit", as an unreadable header) called a valid panorama broken.
  if (rc == 0) rc = spng_set_image_limits(ctx.get(), kPngMaxSide, kPngMaxSide);
  if (rc == 0) rc = spng_set_chunk_limits(ctx.get(), kMaxSpngChunkBytes, kMaxSpngChunkCacheBytes);
  if (rc != 0) ThrowSpng(kind, name, "cannot set up the decoder", rc);
  rc = spng_get_ihdr(ctx.get(), &ihdr);
  if (rc != 0) ThrowSpng(kind, name, "unreadable header", rc);
  return ctx;
}

}  // namespace h5feed::converters::image
