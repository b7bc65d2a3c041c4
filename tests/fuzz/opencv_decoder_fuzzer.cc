// Fuzz target: the converter's decode of BMP, PNM and TIFF through OpenCV imgcodecs
// (converters/image/opencv_decoder.h): PlanDecode, Decode and resizing to a small size
// (image_fuzzing.h).

#include "image_fuzzing.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return h5feed::fuzzing::DecodeAndResize({data, size}, h5feed::converters::image::Format::kOther);
}
