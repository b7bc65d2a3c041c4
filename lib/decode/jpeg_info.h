#pragma once
// What a stored JPEG's header says, read without decoding or allocating anything for pixels.

#include <cstdint>
#include <span>

namespace h5feed::decode {

// A JPEG's size and the channels h5feed delivers for it.
struct JpegInfo {
  int64_t height = 0;
  int64_t width = 0;
  int channels = 0;  // as delivered: 1 gray, 3 RGB (from YCbCr or RGB components)
};

// Reads the header only. Throws Error(kCorrupt) for bytes that are not a JPEG, a truncated
// header, or what h5feed does not deliver (CMYK/YCCK, 12-bit samples, components other than 1
// or 3). Thread-safe: each call uses its own libjpeg decompressor.
JpegInfo ReadJpegInfo(std::span<const uint8_t> jpeg);

}  // namespace h5feed::decode
