// JpegImageDecoder (jpeg_image_decoder.h).

#include "decode/jpeg_image_decoder.h"

#include <algorithm>

#include "decode/jpeg_info.h"
#include "decode/jpeg_region_decoder.h"
#include "h5feed/error.h"

namespace h5feed::decode {
namespace {

// verify decodes a JPEG of more pixels than this at 1/8 scale, so that a worker's memory does
// not follow the largest image a file without a max_side may hold: libjpeg still reads and
// Huffman-decodes every coefficient, only the inverse DCT is coarser.
constexpr int64_t kWholeCheckBytes = int64_t{64} << 20;

// A thread's libjpeg decompressor, reused from image to image.
struct JpegState final : DecoderState {
  JpegRegionDecoder decoder;
};

JpegInfo ExpectedInfo(const ImageShape& shape) {
  return {shape.height, shape.width, static_cast<int>(shape.channels)};
}

class JpegDecoder final : public ImageDecoder {
 public:
  ImageEncoding encoding() const override { return ImageEncoding::kJpeg; }
  std::string_view name() const override { return "JPEG"; }
  std::string_view key() const override { return "jpeg"; }

  bool StoredSizeFits(const ImageShape&, uint64_t bytes) const override { return bytes > 0; }

  DecodedImage Decode(std::span<const uint8_t> stored, const ImageShape& shape,
                      const CropNeeds& needs, DecodeScratch& scratch,
                      DecodeOptions options) const override {
    JpegRegionDecoder& decoder = scratch.StateFor<JpegState>(ImageEncoding::kJpeg).decoder;
    const DecodedRegion region =
        decoder.Decode(stored, ExpectedInfo(shape), needs.box, needs.min_height, needs.min_width,
                       scratch.pixels(), RegionOptions{options.region, options.region});
    return {scratch.pixels().data(), region};
  }

  ImageCheck Check(std::span<const uint8_t> stored, const ImageShape& shape,
                   DecodeScratch& scratch) const override {
    const bool whole = shape.bytes() <= kWholeCheckBytes;
    CropNeeds needs = CropNeeds::Whole(shape);
    if (!whole) {
      needs.min_height = std::max<int64_t>(shape.height / 8, 1);
      needs.min_width = std::max<int64_t>(shape.width / 8, 1);
    }
    try {
      Decode(stored, shape, needs, scratch, DecodeOptions{});
    } catch (const Error& e) {
      return {true, e.what()};
    }
    return {true, {}};
  }

  std::string_view checked() const override {
    return "decoded whole by libjpeg, each header against /image_shapes";
  }
};

}  // namespace

const ImageDecoder& JpegImageDecoder() {
  static const JpegDecoder decoder;
  return decoder;
}

}  // namespace h5feed::decode
