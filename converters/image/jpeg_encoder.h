#pragma once
// JPEG encoding for the converter's stored images (docs/format.md, "Images at their own size"):
// baseline JFIF with libjpeg(-turbo), accurate integer DCT, 4:2:0 chroma subsampling for RGB
// (PIL's and FFCV's default), grayscale for one channel, and a restart marker after every 2
// MCUs (every MCU in rows of an odd count), so that a reader decoding a crop decodes only the
// rows and segments around it (decode/jpeg_restart_cut.h).
//
// Thread-safety: each thread uses its own libjpeg compressor, created on its first call and
// reused until the thread ends.

#include <cstdint>
#include <span>
#include <vector>

namespace h5feed::converters::image {

// Encodes height x width x channels (1 or 3) uint8 pixels, row-major, channels last, at
// `quality` (1-100). `out` is replaced by the JPEG's bytes (its capacity reused). Throws
// Error(kInvalidArgument) for a size, channel count, quality or pixel count that does not fit.
void EncodeJpeg(std::span<const uint8_t> pixels, int64_t height, int64_t width, int channels,
                int quality, std::vector<uint8_t>& out);

// The most bytes EncodeJpeg can produce for such an image (TurboJPEG's tjBufSize, plus the
// restart markers): what a chunk must be able to hold. Throws Error(kInvalidArgument) as EncodeJpeg
// does.
int64_t MaxJpegBytes(int64_t height, int64_t width, int channels);

}  // namespace h5feed::converters::image
