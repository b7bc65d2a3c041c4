#pragma once
// The decode ceiling of a file that stores images as JPEG (docs/format.md, "Images at their
// own size"): one thread's TurboJPEG whole-image decode rate (tjDecompress2 to RGB) on the
// file's own JPEGs, the decode no region decoder or crop can beat by more than what it skips.
// For such a file decoding, not reading, binds: its bytes are a tenth of its pixels.
//
// The JPEGs are read through the file's chunk source (the first chunks holding any), once;
// they are decoded once to warm, then timed, best of `rounds`.

#include <cstdint>
#include <string>

namespace h5feed::bench {

struct JpegRate {
  double images_per_s = 0;  // one thread; 0 when the file holds no JPEG
  int64_t sampled = 0;      // the JPEGs decoded per round
  double share = 0;         // of the file's rows, the fraction stored as JPEG
};

// Throws h5feed::Error when the file cannot be read, or a sampled JPEG cannot be decoded
// (kCorrupt, naming its row).
JpegRate MeasureJpegRate(const std::string& path, int64_t max_images, int rounds,
                         const std::string& images_dataset = "");

}  // namespace h5feed::bench
