// FindDecoder, DecoderFor, AllDecoders and KnownEncodings (decoder_table.h).

#include "decode/decoder_table.h"

#include "decode/jpeg_image_decoder.h"
#include "decode/raw_image_decoder.h"
#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::decode {
namespace {

// One row per encoding, row i the decoder of value i (tests/lib/decode/decoder_table_test.cpp).
std::span<const ImageDecoder* const> Table() {
  static const ImageDecoder* const table[] = {
      &RawImageDecoder(),   // ImageEncoding::kRaw
      &JpegImageDecoder(),  // ImageEncoding::kJpeg
  };
  return table;
}

}  // namespace

const ImageDecoder* FindDecoder(ImageEncoding encoding) noexcept {
  const auto at = static_cast<size_t>(encoding);
  return at < Table().size() ? Table()[at] : nullptr;
}

const ImageDecoder& DecoderFor(ImageEncoding encoding) {
  const ImageDecoder* decoder = FindDecoder(encoding);
  if (decoder == nullptr) {
    throw MakeError(ErrorCode::kCorrupt,
                    "image encoding {} is not one this h5feed decodes ({}): the file's "
                    "/image_encodings is damaged or written by a newer h5feed",
                    static_cast<int>(encoding), KnownEncodings());
  }
  return *decoder;
}

std::span<const ImageDecoder* const> AllDecoders() { return Table(); }

std::string KnownEncodings() {
  std::string text;
  for (const ImageDecoder* decoder : Table()) {
    if (!text.empty()) text += ", ";
    text += std::to_string(static_cast<int>(decoder->encoding())) + " (" +
            std::string(decoder->name()) + ")";
  }
  return text;
}

}  // namespace h5feed::decode
