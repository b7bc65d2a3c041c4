// SamplerOptions::Parse and ToString (h5feed/sampler_options.h).

#include "h5feed/sampler_options.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>

#include "h5feed/error.h"

namespace h5feed {
namespace {

constexpr int64_t kDefaultWindow = 8;

constexpr char kAcceptedForms[] =
    "accepted: sequential, random, chunks, chunks:W, quasi, quasi:W, where W >= 1 is the number "
    "of chunks shuffled together or open at once (default 8)";

[[noreturn]] void Reject(std::string_view text, const std::string& why) {
  throw Error(ErrorCode::kInvalidArgument,
              "sampler \"" + std::string(text) + "\" " + why + " (" + kAcceptedForms + ")");
}

int64_t ParseWindow(std::string_view full_text, std::string_view digits) {
  int64_t window = 0;
  auto [end, status] = std::from_chars(digits.data(), digits.data() + digits.size(), window);
  if (digits.empty() || status != std::errc() || end != digits.data() + digits.size()) {
    Reject(full_text, "has a window that is not a whole number");
  }
  if (window < 1) Reject(full_text, "has window " + std::to_string(window) + ", below 1");
  return window;
}

}  // namespace

SamplerOptions SamplerOptions::Parse(std::string_view text) {
  std::string lowered(text);
  std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string_view name = lowered;
  std::string_view window_text;
  bool has_window = false;
  if (size_t colon = lowered.find(':'); colon != std::string::npos) {
    name = std::string_view(lowered).substr(0, colon);
    window_text = std::string_view(lowered).substr(colon + 1);
    has_window = true;
  }

  SamplerOptions result;
  result.window = kDefaultWindow;
  if (name == "sequential" || name == "random") {
    if (has_window) Reject(text, "takes no window");
    result.kind = name == "sequential" ? Kind::kSequential : Kind::kRandom;
  } else if (name == "chunks" || name == "quasi") {
    result.kind = name == "chunks" ? Kind::kChunks : Kind::kQuasi;
    if (has_window) result.window = ParseWindow(text, window_text);
  } else {
    Reject(text, "is not a known sampler");
  }
  return result;
}

std::string SamplerOptions::ToString() const {
  switch (kind) {
    case Kind::kSequential: return "sequential";
    case Kind::kRandom: return "random";
    case Kind::kChunks: return "chunks:" + std::to_string(window);
    case Kind::kQuasi: return "quasi:" + std::to_string(window);
  }
  return "unknown";
}

}  // namespace h5feed
