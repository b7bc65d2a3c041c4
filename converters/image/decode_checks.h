#pragma once
// Checks and error reporting shared by the image decoders (internal to converters/image).
//
// Every decoder checks the stored dimensions against these limits before allocating anything,
// so a damaged or hostile header (a 100000 x 100000 PNG is 60 bytes) is reported as corrupt
// data instead of exhausting memory.

#include <cstdint>
#include <string_view>

namespace h5feed::converters::image {

// 65535 is the largest side PNG readers commonly accept and above JPEG's 65500 limit; no
// training image comes close.
inline constexpr int64_t kMaxImageSide = 65535;
// The decoded RGB image (and any scratch copy of it) must stay below 2 GiB.
inline constexpr int64_t kMaxImageBytes = int64_t{1} << 31;

// Throws Error(kCorrupt), message "cannot decode <format> image '<name>': <what>", followed by
// advice on what to do.
[[noreturn]] void ThrowCorrupt(std::string_view format, std::string_view name,
                               std::string_view what);

// Throws Error(kCorrupt) unless 1 <= height, width <= kMaxImageSide and height * width *
// `channels` bytes stay below kMaxImageBytes.
void CheckImageSize(int64_t height, int64_t width, int channels, std::string_view format,
                    std::string_view name);

}  // namespace h5feed::converters::image
