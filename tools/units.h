#pragma once
// How the h5feed command writes numbers for people: 12,345 / 95.1 MiB / 1:02:03.

#include <cstdint>
#include <string>

namespace h5feed::cli {

std::string FormatCount(int64_t n);          // 12345 -> "12,345"
std::string FormatBytes(uint64_t bytes);     // 99723264 -> "95.1 MiB"
std::string FormatDuration(double seconds);  // 3723 -> "1:02:03", 62 -> "1:02", 3.25 -> "3.2 s"

}  // namespace h5feed::cli
