#pragma once
// WebP decoding with libwebp (the library PIL links on Debian), lossy and lossless, with or
// without alpha: the colour channels as decoded (not premultiplied, alpha dropped), with
// libwebp's default fancy upsampling, which is what PIL's Image.open(p).convert('RGB') gives.
// Animated WebP files are refused as corrupt (PIL would give the first frame).
//
// Thread-safety: stateless; libwebp decodes with per-call state.

#include <cstdint>
#include <span>
#include <string_view>

#include "image/image_decoder.h"

namespace h5feed::converters::image {

DecodePlan PlanWebp(std::span<const uint8_t> encoded, std::string_view name);

void DecodeWebp(std::span<const uint8_t> encoded, const DecodePlan& plan, std::string_view name,
                std::span<uint8_t> rgb);

}  // namespace h5feed::converters::image
