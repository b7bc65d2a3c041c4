#pragma once
// How the h5feed command writes numbers for people: 12,345 / 1:02:03. Byte sizes are
// written as the whole project writes them, with ByteSize (lib/byte_size.h).

#include <cstdint>
#include <string>
#include <string_view>

namespace h5feed::cli {

std::string FormatCount(int64_t n);  // 12345 -> "12,345"
// A count of things: "1 chunk", "2,400 images"; `many` defaults to `one` + "s".
std::string CountOf(int64_t n, std::string_view one, std::string_view many = {});
std::string FormatDuration(double seconds);  // 3723 -> "1:02:03", 62 -> "1:02", 3.25 -> "3.2 s"

}  // namespace h5feed::cli
