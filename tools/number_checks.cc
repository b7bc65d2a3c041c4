#include "number_checks.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace h5feed::cli {
namespace {

// "1", "0.5", "3.6e+06": as short as it is exact enough for a limit.
std::string Shortest(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", value);
  return text;
}

// "" when `text` is a whole number int64_t holds, or not a whole number at all; else the
// complaint. CLI11 stores a whole number beyond int64_t's range as its limit, silently.
std::string BeyondInt64(const std::string& text) {
  const size_t digits = text.find_first_not_of("+-") == 1 ? 1 : 0;
  if (text.size() <= digits || text.find_first_not_of("0123456789", digits) != std::string::npos) {
    return "";
  }
  errno = 0;
  const long long value = std::strtoll(text.c_str(), nullptr, 10);
  if (errno != ERANGE) return "";
  return value < 0 ? "must be at least " + std::to_string(value) + ", not " + text
                   : "must be at most " + std::to_string(value) + ", not " + text;
}

// The check: `accepts` on the number the text holds, else "must be RULE, not TEXT".
template <typename Accepts>
CLI::Validator NumberCheck(const std::string& rule, const std::string& hint, Accepts accepts) {
  const std::string after = hint.empty() ? "" : "; " + hint;
  return CLI::Validator(
      [rule, after, accepts](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0') {
          return "must be a number " + rule + ", not " + text + after;
        }
        if (std::string beyond = BeyondInt64(text); !beyond.empty()) return beyond;
        return accepts(value) ? std::string() : "must be " + rule + ", not " + text + after;
      },
      "");
}

}  // namespace

CLI::Validator AtLeast(double minimum, const std::string& hint) {
  return NumberCheck("at least " + Shortest(minimum), hint,
                     [minimum](double value) { return value >= minimum; });
}

CLI::Validator WholeUint64() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const size_t digits = text.rfind('+', 0) == 0 ? 1 : 0;
        errno = 0;
        if (text.size() > digits &&
            text.find_first_not_of("0123456789", digits) == std::string::npos) {
          std::strtoull(text.c_str(), nullptr, 10);
          if (errno != ERANGE) return "";
        }
        return "must be a whole number from 0 to 18446744073709551615, not " + text;
      },
      "");
}

CLI::Validator InRange(double low, double high) {
  return NumberCheck("from " + Shortest(low) + " to " + Shortest(high), "",
                     [low, high](double value) { return value >= low && value <= high; });
}

CLI::Validator WholeInRange(int64_t low, int64_t high) {
  return InRange(static_cast<double>(low), static_cast<double>(high))
      .description("INT in [" + std::to_string(low) + " - " + std::to_string(high) + "]");
}

}  // namespace h5feed::cli
