// Compression::Parse and ToString (h5feed/compression.h).

#include "h5feed/compression.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>

#include "codec/deflate_codec.h"
#include "codec/zstd_codec.h"
#include "h5feed/error.h"

namespace h5feed {
namespace {

// zlib's own default (Z_DEFAULT_COMPRESSION) and zstd's: the usual balance of speed and size.
constexpr int kDefaultDeflateLevel = 6;
constexpr int kDefaultZstdLevel = 3;

constexpr char kAcceptedForms[] =
    "accepted: none, zstd, zstd:LEVEL (1-22), gzip, gzip:LEVEL (1-9); deflate is a synonym of "
    "gzip";

[[noreturn]] void Reject(std::string_view text, const std::string& why) {
  throw Error(ErrorCode::kInvalidArgument,
              "compression \"" + std::string(text) + "\" " + why + " (" + kAcceptedForms + ")");
}

int ParseLevel(std::string_view full_text, std::string_view digits, int min, int max) {
  int level = 0;
  auto [end, status] = std::from_chars(digits.data(), digits.data() + digits.size(), level);
  if (digits.empty() || status != std::errc() || end != digits.data() + digits.size()) {
    Reject(full_text, "has a level that is not a whole number");
  }
  if (level < min || level > max) {
    Reject(full_text, "has level " + std::to_string(level) + ", outside " + std::to_string(min) +
                          "-" + std::to_string(max));
  }
  return level;
}

}  // namespace

Compression Compression::Parse(std::string_view text) {
  std::string lowered(text);
  std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string_view name = lowered;
  std::string_view level_text;
  bool has_level = false;
  if (size_t colon = lowered.find(':'); colon != std::string::npos) {
    name = std::string_view(lowered).substr(0, colon);
    level_text = std::string_view(lowered).substr(colon + 1);
    has_level = true;
  }

  Compression result;
  if (name == "none") {
    if (has_level) Reject(text, "takes no level");
    result.kind = Kind::kNone;
    result.level = 0;
  } else if (name == "zstd") {
    result.kind = Kind::kZstd;
    result.level = has_level ? ParseLevel(text, level_text, codec::kZstdMinLevel,
                                          codec::kZstdMaxLevel)
                             : kDefaultZstdLevel;
  } else if (name == "gzip" || name == "deflate") {
    result.kind = Kind::kDeflate;
    result.level = has_level ? ParseLevel(text, level_text, codec::kDeflateMinLevel,
                                          codec::kDeflateMaxLevel)
                             : kDefaultDeflateLevel;
  } else {
    Reject(text, "is not a known compression");
  }
  return result;
}

std::string Compression::ToString() const {
  switch (kind) {
    case Kind::kNone: return "none";
    case Kind::kZstd: return "zstd:" + std::to_string(level);
    case Kind::kDeflate: return "gzip:" + std::to_string(level);
  }
  return "unknown";
}

}  // namespace h5feed
