#pragma once
// How one image of a file of images at their own size is stored (/image_encodings; docs/format.md,
// "Encodings"). The values are the stored bytes: a new encoding takes the next value, never a
// used one. Its decoder is its row of decode/decoder_table.cc (docs/reader.md, "Adding an
// encoding").

#include <cstdint>

namespace h5feed {

enum class ImageEncoding : uint8_t {
  kRaw = 0,   // H x W x C uint8 pixels, row-major, channels last
  kJpeg = 1,  // the bytes of a JPEG file that decodes to H x W x C
};

}  // namespace h5feed
