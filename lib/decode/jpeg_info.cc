#include "decode/jpeg_info.h"

#include "decode/jpeg_decompressor.h"

namespace h5feed::decode {

JpegInfo ReadJpegInfo(std::span<const uint8_t> jpeg) {
  JpegDecompressor decompressor;
  JpegInfo info = decompressor.ReadHeader(jpeg);
  decompressor.Abort();
  return info;
}

}  // namespace h5feed::decode
