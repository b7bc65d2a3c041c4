#pragma once
// The shape of one stored image: height x width x channels, uint8, channels last.

#include <cstdint>

namespace h5feed {

struct ImageShape {
  int64_t height = 0;
  int64_t width = 0;
  int64_t channels = 3;

  int64_t bytes() const { return height * width * channels; }
  friend bool operator==(const ImageShape&, const ImageShape&) = default;
};

}  // namespace h5feed
