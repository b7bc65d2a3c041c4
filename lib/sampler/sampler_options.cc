// SamplerOptions::Parse and ToString (h5feed/sampler_options.h).

#include "h5feed/sampler_options.h"

#include <charconv>
#include <optional>
#include <string>

#include "enum_names.h"
#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed {
namespace {

using Kind = SamplerOptions::Kind;

constexpr int64_t kDefaultWindow = 8;

bool TakesWindow(Kind kind) { return kind == Kind::kChunks || kind == Kind::kQuasi; }

// "sequential, random, chunks, chunks:W, quasi, quasi:W, where W ...": from the kinds' words.
std::string AcceptedForms() {
  std::string forms;
  for (const NamedValue<Kind>& entry : EnumNames<Kind>::names) {
    const std::string name(entry.name);
    forms += (forms.empty() ? "" : ", ") + name;
    if (TakesWindow(entry.value)) forms += ", " + name + ":W";
  }
  return "accepted: " + forms +
         ", where W >= 1 is the number of chunks shuffled together or open at once (default " +
         std::to_string(kDefaultWindow) + ")";
}

template <typename... Args>
[[noreturn]] void Reject(std::string_view text, fmt::format_string<Args...> why, Args&&... args) {
  throw MakeError(ErrorCode::kInvalidArgument, "sampler \"{}\" {} ({})", text,
                  fmt::format(why, std::forward<Args>(args)...), AcceptedForms());
}

int64_t ParseWindow(std::string_view full_text, std::string_view digits) {
  int64_t window = 0;
  auto [end, status] = std::from_chars(digits.data(), digits.data() + digits.size(), window);
  if (digits.empty() || status != std::errc() || end != digits.data() + digits.size()) {
    Reject(full_text, "has a window that is not a whole number");
  }
  if (window < 1) Reject(full_text, "has window {}, below 1", window);
  return window;
}

}  // namespace

SamplerOptions SamplerOptions::Parse(std::string_view text) {
  const size_t colon = text.find(':');
  const std::optional<Kind> kind = FindName<Kind>(text.substr(0, colon));
  if (!kind) Reject(text, "is not a known sampler");
  SamplerOptions result;
  result.kind = *kind;
  result.window = kDefaultWindow;
  if (colon != std::string_view::npos) {
    if (!TakesWindow(*kind)) Reject(text, "takes no window");
    result.window = ParseWindow(text, text.substr(colon + 1));
  }
  return result;
}

std::string SamplerOptions::ToString() const {
  const std::string name(NameOf(kind));
  return TakesWindow(kind) ? name + ":" + std::to_string(window) : name;
}

}  // namespace h5feed
