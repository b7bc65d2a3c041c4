// Fuzz target: the converter's decode of WebP through libwebp (converters/image/webp_decoder.h):
// PlanDecode, Decode and resizing to a small size (image_fuzzing.h).

#include "image_fuzzing.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return h5feed::fuzzing::DecodeAndResize({data, size}, h5feed::converters::image::Format::kWebp);
}
