#pragma once
// How h5feed writes a number of bytes for people, in messages, warnings and reports: the one
// rule, so a size reads the same wherever it appears.
//
//   fmt::format("needs {}", ByteSize(99723264))   ->  "needs 95.2 MiB"
//   ToString(ByteSize(1000))                     ->  "1000 B"
//
// Binary units (B, KiB, MiB, GiB, TiB, PiB, EiB): the largest one the size reaches, with one
// decimal, rounded up. Rounded up because most sizes in messages are what something needs
// ("a cache of 20.4 KiB avoids it"); a figure rounded down could be set and still fall short.
// Below 1 KiB the exact count of bytes, without a decimal. A negative size (a difference)
// is written as its magnitude after a minus sign.

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace h5feed {

struct ByteSize {
  // From any integer: sizes are int64_t in some places and uint64_t in others, and every
  // size h5feed handles fits either.
  template <std::integral Integer>
  constexpr explicit ByteSize(Integer count) : bytes(static_cast<std::int64_t>(count)) {}

  std::int64_t bytes;
};

std::string ToString(ByteSize size);

}  // namespace h5feed

template <>
struct fmt::formatter<h5feed::ByteSize> : fmt::formatter<std::string_view> {
  auto format(h5feed::ByteSize size, fmt::format_context& context) const {
    return fmt::formatter<std::string_view>::format(h5feed::ToString(size), context);
  }
};
