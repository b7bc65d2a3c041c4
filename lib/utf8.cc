// Utf8SequenceLength and EscapeInvalidUtf8 (utf8.h).

#include "utf8.h"

namespace h5feed {

size_t Utf8SequenceLength(std::span<const uint8_t> text, size_t i) {
  const uint8_t b = text[i];
  if (b < 0x80) return 1;
  size_t length = 0;
  uint8_t low = 0x80, high = 0xBF;  // the allowed range of the second byte
  if (b >= 0xC2 && b <= 0xDF) {
    length = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    length = 3;
    if (b == 0xE0) low = 0xA0;   // overlong
    if (b == 0xED) high = 0x9F;  // surrogates
  } else if (b >= 0xF0 && b <= 0xF4) {
    length = 4;
    if (b == 0xF0) low = 0x90;   // overlong
    if (b == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (text[i + 1] < low || text[i + 1] > high) return 0;
  for (size_t k = 2; k < length; ++k) {
    if (text[i + k] < 0x80 || text[i + k] > 0xBF) return 0;
  }
  return length;
}

std::string EscapeInvalidUtf8(std::string_view text) {
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  std::string escaped;
  escaped.reserve(text.size());
  constexpr char kHex[] = "0123456789abcdef";
  for (size_t i = 0; i < bytes.size();) {
    const size_t length = Utf8SequenceLength(bytes, i);
    if (length == 0) {
      escaped += "\\x";
      escaped += kHex[bytes[i] >> 4];
      escaped += kHex[bytes[i] & 0xF];
      ++i;
    } else {
      escaped.append(text.substr(i, length));
      i += length;
    }
  }
  return escaped;
}

}  // namespace h5feed
