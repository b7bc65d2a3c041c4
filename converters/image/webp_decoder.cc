#include "image/webp_decoder.h"

#include <webp/decode.h>

#include <string>

#include "h5feed/error.h"
#include "image/decode_checks.h"
#include "make_error.h"

namespace h5feed::converters::image {
namespace {

constexpr std::string_view kWebp = "WebP";

std::string_view StatusText(VP8StatusCode status) {
  switch (status) {
    case VP8_STATUS_OK: return "ok";
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "bitstream error";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported feature";
    case VP8_STATUS_SUSPENDED: return "suspended";
    case VP8_STATUS_USER_ABORT: return "aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "not enough data (truncated file)";
  }
  return "unknown status";
}

}  // namespace

DecodePlan PlanWebp(std::span<const uint8_t> encoded, std::string_view name) {
  WebPBitstreamFeatures features;
  const VP8StatusCode status = WebPGetFeatures(encoded.data(), encoded.size(), &features);
  if (status != VP8_STATUS_OK) {
    ThrowCorrupt(kWebp, name,
                 "unreadable header (libwebp: " + std::string(StatusText(status)) + ")");
  }
  if (features.has_animation) {
    ThrowCorrupt(kWebp, name, "animated WebP is not supported; convert it to a still image first");
  }
  CheckImageSize(features.height, features.width, 3, kWebp, name);
  DecodePlan plan;
  plan.format = Format::kWebp;
  plan.full_height = plan.height = features.height;
  plan.full_width = plan.width = features.width;
  // libwebp decodes a lossless image whole into its own ARGB buffer (4 bytes a pixel) and then
  // converts it; a lossy one keeps a few macroblock rows of YUV, plus a whole alpha plane when
  // it has one. A still image of unknown kind (format 0) is counted as lossless.
  const int64_t pixels = int64_t{features.height} * features.width;
  plan.scratch_bytes = int64_t{features.width} * 128 + (1 << 20);
  if (features.format != 1) plan.scratch_bytes += 4 * pixels;
  if (features.has_alpha) plan.scratch_bytes += pixels;
  return plan;
}

void DecodeWebp(std::span<const uint8_t> encoded, const DecodePlan& plan, std::string_view name,
                std::span<uint8_t> rgb) {
  int width = 0;
  int height = 0;
  if (!WebPGetInfo(encoded.data(), encoded.size(), &width, &height)) {
    ThrowCorrupt(kWebp, name, "unreadable header");
  }
  if (height != plan.height || width != plan.width) {
    throw MakeError(ErrorCode::kInternal, "WebP decode plan for '{}' does not match its header",
                    name);
  }
  WebPDecoderConfig config;
  if (!WebPInitDecoderConfig(&config)) {
    throw Error(ErrorCode::kInternal, "libwebp version mismatch (WebPInitDecoderConfig failed)");
  }
  // Decoding straight into `rgb`: libwebp checks that it holds height * stride bytes and
  // writes nothing past them.
  config.output.colorspace = MODE_RGB;
  config.output.is_external_memory = 1;
  config.output.u.RGBA.rgba = rgb.data();
  config.output.u.RGBA.stride = plan.width * 3;
  config.output.u.RGBA.size = static_cast<size_t>(plan.bytes());
  const VP8StatusCode status = WebPDecode(encoded.data(), encoded.size(), &config);
  WebPFreeDecBuffer(&config.output);
  if (status != VP8_STATUS_OK) {
    ThrowCorrupt(
        kWebp, name,
        "damaged or truncated image data (libwebp: " + std::string(StatusText(status)) + ")");
  }
}

}  // namespace h5feed::converters::image
