// CheckStoredImage (stored_image_check.h).

#include "format/stored_image_check.h"

#include <algorithm>
#include <string>

#include "format/require.h"

namespace h5feed::format {
namespace {

std::string StoredShapeText(const StoredImage& image) {
  return std::to_string(image.height) + "x" + std::to_string(image.width) + "x" +
         std::to_string(image.channels);
}

}  // namespace

void CheckStoredImage(const StoredImage& image, const FlatLayout& layout, int64_t chunk_bytes) {
  Require(image.height > 0 && image.width > 0 && (image.channels == 1 || image.channels == 3),
          "image shape {} is not positive with 1 or 3 channels", StoredShapeText(image));
  const uint64_t raw = uint64_t(image.height) * uint64_t(image.width) * uint64_t(image.channels);
  Require(layout.max_side == 0 || std::max(image.height, image.width) <= layout.max_side,
          "image of {} has a side longer than the file's max_side {}", StoredShapeText(image),
          layout.max_side);
  Require(image.bytes > 0 && image.bytes <= static_cast<uint64_t>(chunk_bytes),
          "image of {} is stored in {} bytes; an image takes 1 to chunk_bytes {}",
          StoredShapeText(image), image.bytes, chunk_bytes);
  bool jpeg = false;
  switch (layout.encoding.kind) {
    case StoredEncoding::Kind::kRaw: jpeg = false; break;
    case StoredEncoding::Kind::kJpeg: jpeg = true; break;
    case StoredEncoding::Kind::kSmart:
      jpeg = raw > static_cast<uint64_t>(layout.smart_threshold);
      break;
  }
  const ImageEncoding expected = jpeg ? ImageEncoding::kJpeg : ImageEncoding::kRaw;
  Require(image.encoding == expected,
          "image of {} is encoded as {}, but a file of encoding {} stores it as {}",
          StoredShapeText(image), (image.encoding == ImageEncoding::kJpeg ? "JPEG" : "raw pixels"),
          layout.encoding.ToString(), (jpeg ? "JPEG" : "raw pixels"));
  Require(jpeg || image.bytes == raw, "raw image of {} is stored in {} bytes, not H*W*C = {}",
          StoredShapeText(image), image.bytes, raw);
}

}  // namespace h5feed::format
