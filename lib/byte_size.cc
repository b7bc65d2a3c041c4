#include "byte_size.h"

#include <array>

namespace h5feed {
namespace {

std::string MagnitudeText(std::uint64_t bytes) {
  static constexpr std::array<std::string_view, 7> kUnits = {"B",   "KiB", "MiB", "GiB",
                                                             "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  size_t unit = 1;
  while (unit + 1 < kUnits.size() && bytes >> (10 * (unit + 1)) != 0) ++unit;
  // Tenths of the unit, rounded up, in integers: a double's 53 bits cannot hold every size.
  // The remainder is below 2^60, so ten times it plus the rounding still fits 64 bits.
  const int shift = static_cast<int>(10 * unit);
  const std::uint64_t one = std::uint64_t{1} << shift;
  const std::uint64_t rest = bytes & (one - 1);
  std::uint64_t tenths = (bytes >> shift) * 10 + (rest * 10 + one - 1) / one;
  if (tenths == 10240 && unit + 1 < kUnits.size()) {  // 1023.95 KiB and up: 1.0 MiB
    tenths = 10;
    ++unit;
  }
  return fmt::format("{}.{} {}", tenths / 10, tenths % 10, kUnits[unit]);
}

}  // namespace

std::string ToString(ByteSize size) {
  if (size.bytes >= 0) return MagnitudeText(static_cast<std::uint64_t>(size.bytes));
  // Negated as unsigned, which holds the magnitude of INT64_MIN too.
  return fmt::format("-{}", MagnitudeText(-static_cast<std::uint64_t>(size.bytes)));
}

}  // namespace h5feed
