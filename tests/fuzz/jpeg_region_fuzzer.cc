// Fuzz target: a stored JPEG decoded in part by the reader (lib/decode/jpeg_region_decoder.h).
// The input is the file as it is: its header is read (ReadJpegInfo) and taken as the file's
// table, then the same decoder, reused as a loader thread reuses it, decodes the whole image,
// the box a center crop needs and a corner box, at full and at reduced DCT scale (so
// jpeg_skip_scanlines and jpeg_crop_scanline run on hostile data too).

#include "decode/jpeg_info.h"
#include "decode/jpeg_region_decoder.h"
#include "fuzz_support.h"

namespace {

// Harness limit, not h5feed's: images of more decoded bytes are skipped.
constexpr int64_t kMaxPixelBytes = int64_t{16} << 20;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace h5feed::decode;
  static JpegRegionDecoder decoder;
  static std::vector<uint8_t> dest;
  const std::span<const uint8_t> jpeg(data, size);
  h5feed::fuzzing::ExpectCleanErrorsOnly([&] {
    const JpegInfo info = ReadJpegInfo(jpeg);
    if (info.height * info.width * info.channels > kMaxPixelBytes) return;
    const int64_t h = info.height, w = info.width;
    const PixelBox boxes[] = {{0, 0, h, w},
                              {h / 4, w / 4, h - h / 2, w - w / 2},
                              {h - (h + 2) / 3, w - (w + 2) / 3, (h + 2) / 3, (w + 2) / 3}};
    for (const PixelBox& box : boxes) {
      for (int64_t min : {int64_t{0}, box.height / 2}) {
        try {
          const DecodedRegion region = decoder.Decode(jpeg, info, box, min, min, dest);
          if (static_cast<int64_t>(dest.size()) < region.height * region.width * region.channels) {
            h5feed::fuzzing::Finding("the region holds more bytes than were delivered");
          }
        } catch (const h5feed::Error& error) {
          if (error.code() != h5feed::ErrorCode::kCorrupt) throw;
        }
      }
    }
  });
  return 0;
}
