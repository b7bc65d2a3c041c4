#pragma once
// The value of a benchmark tool's option that must be a whole number from 1 to `max`
// (--rounds, --chunks, --threads, ...). Anything else goes to `usage`, the tool's own
// [[noreturn]] usage error, with the reason.

#include <cstdlib>
#include <string>

template <typename Usage>
long WholeNumberArg(const std::string& option, const char* text, long max, Usage&& usage) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 1 || value > max) {
    usage(option + " must be a whole number from 1 to " + std::to_string(max) + ", got '" + text +
          "'");
  }
  return value;
}
