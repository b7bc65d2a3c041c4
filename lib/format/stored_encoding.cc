// StoredEncoding::Parse, ToString and DefaultCompression (h5feed/writer.h).

#include <string>
#include <string_view>

#include "h5feed/error.h"
#include "h5feed/writer.h"
#include "make_error.h"

namespace h5feed {

StoredEncoding StoredEncoding::Parse(std::string_view text) {
  const size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  StoredEncoding encoding;
  bool known = true;
  if (name == "raw") {
    encoding.kind = Kind::kRaw;
    known = colon == std::string_view::npos;
  } else if (name == "jpeg") {
    encoding.kind = Kind::kJpeg;
  } else if (name == "smart") {
    encoding.kind = Kind::kSmart;
  } else {
    known = false;
  }
  if (known && colon != std::string_view::npos) {
    const std::string quality(text.substr(colon + 1));
    size_t used = 0;
    try {
      encoding.quality = std::stoi(quality, &used);
    } catch (const std::logic_error&) {
      used = 0;
    }
    known = !quality.empty() && used == quality.size() && encoding.quality >= 1 &&
            encoding.quality <= 100;
  }
  if (!known) {
    throw MakeError(
        ErrorCode::kInvalidArgument,
        "encoding '{}' is not one of raw, jpeg[:QUALITY], smart[:QUALITY] (QUALITY 1-100, default "
        "90)",
        text);
  }
  return encoding;
}

std::string StoredEncoding::ToString() const {
  switch (kind) {
    case Kind::kRaw: return "raw";
    case Kind::kJpeg: return "jpeg:" + std::to_string(quality);
    case Kind::kSmart: return "smart:" + std::to_string(quality);
  }
  return "raw";
}

Compression StoredEncoding::DefaultCompression() const {
  return kind == Kind::kJpeg ? Compression{Compression::Kind::kNone, 0} : Compression{};
}

}  // namespace h5feed
