#pragma once
// How the h5feed command writes numbers for people: 12,345 / 1:02:03. Byte sizes are
// written as the whole project writes them, with ByteSize (lib/byte_size.h).

#include <cstdint>
#include <string>

namespace h5feed::cli {

std::string FormatCount(int64_t n);          // 12345 -> "12,345"
std::string FormatDuration(double seconds);  // 3723 -> "1:02:03", 62 -> "1:02", 3.25 -> "3.2 s"

}  // namespace h5feed::cli
