#pragma once
// The decoder of ImageEncoding::kRaw: the stored bytes are the image's pixels, H x W x C uint8,
// row-major, channels last, delivered in place (no copy, no scratch).

#include "decode/image_decoder.h"

namespace h5feed::decode {

const ImageDecoder& RawImageDecoder();

}  // namespace h5feed::decode
