#pragma once
// The geometry every decoder speaks: a box of the full-size image a crop reads, and the region
// of it a decode delivered (possibly at a coarser scale).

#include <cstdint>

namespace h5feed::decode {

// A rectangle of pixels in the full-size image.
struct PixelBox {
  int64_t top = 0, left = 0, height = 0, width = 0;
};

// What a decode delivered.
struct DecodedRegion {
  int scale = 1;                  // decoded at 1/scale of the image's size: 1, 2, 4 or 8
  int64_t top = 0, left = 0;      // the region's origin in that scaled image
  int64_t height = 0, width = 0;  // its rows and columns (height*width*channels bytes,
                                  // row-major, channels last)
  int channels = 0;
};

}  // namespace h5feed::decode
