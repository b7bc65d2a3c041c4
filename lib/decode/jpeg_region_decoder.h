#pragma once
// Decoding only the part of a stored JPEG that a crop needs, at the coarsest DCT scale (1/2,
// 1/4, 1/8) whose output the crop can still be resized from without upsampling: libjpeg skips
// the rows above the crop (jpeg_skip_scanlines), stops after its last row, and decodes only the
// iMCU columns around it (jpeg_crop_scanline); a JPEG whose restart markers split its MCU rows
// into segments is first cut to the rows and segments around the box, so that nothing outside
// them is even entropy-decoded (jpeg_restart_cut.h).
// The pixels are those of a whole-image decode at the same scale with PIL's settings (accurate
// integer IDCT, fancy upsampling), exactly (tests/lib/decode/jpeg_region_decoder_test.cpp).

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "decode/jpeg_info.h"
#include "decode/pixel_region.h"

namespace h5feed::decode {

class JpegDecompressor;

// Switches for benchmarks and tests; production decoding keeps both on.
struct RegionOptions {
  bool scale = true;  // off: always full scale (DecodedRegion::scale 1)
  bool crop = true;   // off: the whole (scaled) image is decoded and delivered, origin 0, 0
};

// One per thread: holds a libjpeg decompressor reused from image to image. Not thread-safe.
class JpegRegionDecoder {
 public:
  JpegRegionDecoder();
  JpegRegionDecoder(const JpegRegionDecoder&) = delete;
  JpegRegionDecoder& operator=(const JpegRegionDecoder&) = delete;
  JpegRegionDecoder(JpegRegionDecoder&&) noexcept;
  JpegRegionDecoder& operator=(JpegRegionDecoder&&) noexcept;
  ~JpegRegionDecoder();

  // Decodes the part of `jpeg` covering `box` (inside the image) at the coarsest scale 1/s,
  // s in {1, 2, 4, 8}, at which the box still spans at least min_height rows and min_width
  // columns (box.height >= s * min_height and box.width >= s * min_width), into the start of
  // dest (grown to hold the region where it is smaller, never shrunk). The region covers box/s
  // entirely: rows and columns from the floor of the box's start / s to the ceiling of its end / s.
  //
  // `expected` is what the file's table says: a header whose size or components differ throws
  // Error(kCorrupt) before anything is allocated for pixels (a header claiming 65535 x 65535
  // costs nothing). Corrupt or truncated data throws Error(kCorrupt), libjpeg's warnings
  // included (stored images are checksummed: a warning means damage). A box outside the image
  // or negative minimums throw Error(kInvalidArgument). The decoder stays usable after any
  // error. `jpeg` is read in place, or cut around the box into a copy of its own
  // (jpeg_restart_cut.h).
  DecodedRegion Decode(std::span<const uint8_t> jpeg, const JpegInfo& expected, const PixelBox& box,
                       int64_t min_height, int64_t min_width, std::vector<uint8_t>& dest,
                       RegionOptions options = {});

 private:
  // Decode at 1/scale of `jpeg`, the `part` of the image cut around the box
  // (jpeg_restart_cut.h; the whole image when not cut): `expected` and `box` are the part's,
  // the region returned the whole image's.
  DecodedRegion DecodeFrom(std::span<const uint8_t> jpeg, const JpegInfo& expected,
                           const PixelBox& box, const PixelBox& part, int scale,
                           std::vector<uint8_t>& dest, RegionOptions options);

  std::unique_ptr<JpegDecompressor> decompressor_;
  std::vector<uint8_t> cut_;  // the JPEG cut around the box, when it can be
  std::vector<uint8_t> row_;  // one decoded row of the cropped span, when wider than the region
};

}  // namespace h5feed::decode
