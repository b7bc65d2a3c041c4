#include "units.h"

#include <cmath>
#include <cstdio>

namespace h5feed::cli {

std::string FormatCount(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string CountOf(int64_t n, std::string_view one, std::string_view many) {
  std::string thing(n == 1 ? one : many);
  if (n != 1 && many.empty()) thing = std::string(one) + "s";
  return FormatCount(n) + " " + thing;
}

std::string FormatDuration(double seconds) {
  char text[32];
  if (seconds < 60) {
    std::snprintf(text, sizeof text, "%.1f s", seconds);
    return text;
  }
  auto total = static_cast<int64_t>(std::llround(seconds));
  if (total < 3600) {
    std::snprintf(text, sizeof text, "%lld:%02lld", static_cast<long long>(total / 60),
                  static_cast<long long>(total % 60));
  } else {
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", static_cast<long long>(total / 3600),
                  static_cast<long long>(total / 60 % 60), static_cast<long long>(total % 60));
  }
  return text;
}

}  // namespace h5feed::cli
