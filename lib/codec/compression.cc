// Compression::Parse and ToString (h5feed/compression.h).

#include "h5feed/compression.h"

#include <charconv>
#include <optional>
#include <string>

#include "codec/deflate_codec.h"
#include "codec/zstd_codec.h"
#include "enum_names.h"
#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed {
namespace {

using Kind = Compression::Kind;

struct LevelRange {
  int min = 0;
  int max = 0;
  int default_level = 0;
};

// The levels of a kind; none for kNone. The defaults are zstd's own and zlib's
// (Z_DEFAULT_COMPRESSION): the usual balance of speed and size.
std::optional<LevelRange> LevelsOf(Kind kind) {
  switch (kind) {
    case Kind::kNone: break;
    case Kind::kZstd: return LevelRange{codec::kZstdMinLevel, codec::kZstdMaxLevel, 3};
    case Kind::kDeflate: return LevelRange{codec::kDeflateMinLevel, codec::kDeflateMaxLevel, 6};
  }
  return std::nullopt;
}

// "none, zstd, zstd:LEVEL (1-22), gzip, gzip:LEVEL (1-9), deflate, ...": from the kinds' words.
std::string AcceptedForms() {
  std::string forms;
  for (const NamedValue<Kind>& entry : EnumNames<Kind>::names) {
    const std::string name(entry.name);
    forms += (forms.empty() ? "" : ", ") + name;
    if (std::optional<LevelRange> levels = LevelsOf(entry.value)) {
      forms += ", " + name + ":LEVEL (" + std::to_string(levels->min) + "-" +
               std::to_string(levels->max) + ")";
    }
  }
  return "accepted: " + forms;
}

template <typename... Args>
[[noreturn]] void Reject(std::string_view text, fmt::format_string<Args...> why, Args&&... args) {
  throw MakeError(ErrorCode::kInvalidArgument, "compression \"{}\" {} ({})", text,
                  fmt::format(why, std::forward<Args>(args)...), AcceptedForms());
}

int ParseLevel(std::string_view full_text, std::string_view digits, int min, int max) {
  int level = 0;
  auto [end, status] = std::from_chars(digits.data(), digits.data() + digits.size(), level);
  if (digits.empty() || status != std::errc() || end != digits.data() + digits.size()) {
    Reject(full_text, "has a level that is not a whole number");
  }
  if (level < min || level > max) {
    Reject(full_text, "has level {}, outside {}-{}", level, min, max);
  }
  return level;
}

}  // namespace

// The kind through its table's FindName rather than ParseName: a refusal lists the levels
// beside the kinds' words, which ParseName's refusal of a plain word cannot.
Compression Compression::Parse(std::string_view text) {
  const size_t colon = text.find(':');
  const std::optional<Kind> kind = FindName<Kind>(text.substr(0, colon));
  if (!kind) Reject(text, "is not a known compression");
  const bool has_level = colon != std::string_view::npos;
  Compression result;
  result.kind = *kind;
  if (std::optional<LevelRange> levels = LevelsOf(*kind)) {
    result.level = has_level ? ParseLevel(text, text.substr(colon + 1), levels->min, levels->max)
                             : levels->default_level;
  } else {
    if (has_level) Reject(text, "takes no level");
    result.level = 0;
  }
  return result;
}

std::string Compression::ToString() const {
  const std::string name(NameOf(kind));
  return kind == Kind::kNone ? name : name + ":" + std::to_string(level);
}

}  // namespace h5feed
