// OwnSizeJpegCheck (own_size_jpeg_check.h).

#include "index/own_size_jpeg_check.h"

#include <algorithm>

#include "decode/jpeg_info.h"
#include "h5feed/error.h"

namespace h5feed::index {
namespace {

// A JPEG of more pixels than this is decoded at 1/8 scale (own_size_jpeg_check.h says why).
constexpr int64_t kWholeDecodeBytes = int64_t{64} << 20;

}  // namespace

std::string OwnSizeJpegCheck::Problem(const StoredImage& image, std::span<const uint8_t> jpeg) {
  const decode::JpegInfo expected{image.height, image.width, image.channels};
  const bool whole = int64_t{image.height} * image.width * image.channels <= kWholeDecodeBytes;
  const int64_t min_height = whole ? image.height : std::max(image.height / 8, 1);
  const int64_t min_width = whole ? image.width : std::max(image.width / 8, 1);
  ++decoded_;
  try {
    decoder_.Decode(jpeg, expected, decode::PixelBox{0, 0, image.height, image.width}, min_height,
                    min_width, pixels_);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

}  // namespace h5feed::index
