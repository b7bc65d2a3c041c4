// RawImageDecoder (raw_image_decoder.h).

#include "decode/raw_image_decoder.h"

#include <string>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::decode {
namespace {

std::string RawShapeText(const ImageShape& shape) {
  return std::to_string(shape.height) + "x" + std::to_string(shape.width) + "x" +
         std::to_string(shape.channels);
}

// "" when `stored` is the pixels of an image of `shape`.
std::string RawSizeProblem(std::span<const uint8_t> stored, const ImageShape& shape) {
  if (static_cast<int64_t>(stored.size()) == shape.bytes()) return {};
  return "raw pixels: " + std::to_string(stored.size()) + " bytes stored for a " +
         RawShapeText(shape) + " image, not H*W*C = " + std::to_string(shape.bytes());
}

class RawDecoder final : public ImageDecoder {
 public:
  ImageEncoding encoding() const override { return ImageEncoding::kRaw; }
  std::string_view name() const override { return "raw pixels"; }
  std::string_view key() const override { return "raw"; }

  bool StoredSizeFits(const ImageShape& shape, uint64_t bytes) const override {
    return bytes == static_cast<uint64_t>(shape.bytes());
  }

  // The whole image, in place, whatever the box: the crop reads its box from it.
  DecodedImage Decode(std::span<const uint8_t> stored, const ImageShape& shape,
                      const CropNeeds& needs, DecodeScratch&, DecodeOptions) const override {
    const PixelBox& box = needs.box;
    if (box.top < 0 || box.left < 0 || box.height <= 0 || box.width <= 0 ||
        box.top + box.height > shape.height || box.left + box.width > shape.width) {
      throw MakeError(ErrorCode::kInvalidArgument,
                      "raw pixels: box {}x{} at ({}, {}) is not inside a {} image", box.height,
                      box.width, box.top, box.left, RawShapeText(shape));
    }
    if (std::string problem = RawSizeProblem(stored, shape); !problem.empty()) {
      throw MakeError(ErrorCode::kCorrupt, "{}", problem);
    }
    return {stored.data(), DecodedRegion{.scale = 1,
                                         .top = 0,
                                         .left = 0,
                                         .height = shape.height,
                                         .width = shape.width,
                                         .channels = static_cast<int>(shape.channels)}};
  }

  // The pixels are what their checksum covers: only their size is left to check.
  ImageCheck Check(std::span<const uint8_t> stored, const ImageShape& shape,
                   DecodeScratch&) const override {
    return {false, RawSizeProblem(stored, shape)};
  }

  std::string_view checked() const override { return {}; }
};

}  // namespace

const ImageDecoder& RawImageDecoder() {
  static const RawDecoder decoder;
  return decoder;
}

}  // namespace h5feed::decode
