#pragma once
// The decoder of ImageEncoding::kJpeg: the stored bytes are a JPEG file, decoded only where the
// crop reads and at the coarsest DCT scale its output allows (jpeg_region_decoder.h), into the
// scratch. Its header must match the file's table; libjpeg's warnings are errors (stored
// images are checksummed: a warning means damage).

#include "decode/image_decoder.h"

namespace h5feed::decode {

const ImageDecoder& JpegImageDecoder();

}  // namespace h5feed::decode
