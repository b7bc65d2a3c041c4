#pragma once
// JPEGs for the decode tests: photo-like pixels (smooth gradients, a little texture and noise,
// as the DCT sees in photographs) encoded with TurboJPEG, and TurboJPEG's own decode with PIL's
// settings (accurate IDCT, fancy upsampling) as the reference.

#include <turbojpeg.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace h5feed::decode::testing {

using Bytes = std::vector<uint8_t>;

inline Bytes PhotoPixels(int height, int width, int channels, uint32_t seed) {
  Bytes out(static_cast<size_t>(height) * width * channels);
  uint32_t state = seed * 2654435761u + 12345;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < channels; ++c) {
        state = state * 1664525u + 1013904223u;
        const double smooth = 128 + 70 * std::sin(0.031 * x + 0.7 * c + seed) +
                              50 * std::cos(0.023 * y - 0.4 * c) + 20 * std::sin(0.2 * (x + y));
        const double noise = static_cast<double>(state >> 24) / 255.0 * 24 - 12;
        const double value = std::clamp(smooth + noise, 0.0, 255.0);
        out[(static_cast<size_t>(y) * width + x) * channels + c] = static_cast<uint8_t>(value);
      }
    }
  }
  return out;
}

// subsampling: TJSAMP_420, TJSAMP_444, TJSAMP_422, TJSAMP_GRAY (1-channel pixels);
// flags: TJFLAG_PROGRESSIVE for a progressive file. restart: "" none, "N" a restart marker after
// every N MCU rows (h5feed's converter writes them at every row), "NB" after every N MCUs
// (TurboJPEG 2.1 takes it from the environment only, which tests, on one thread, may set).
inline Bytes EncodeTestJpeg(std::span<const uint8_t> pixels, int height, int width, int subsampling,
                            int quality = 90, int flags = 0, int pixel_format = -1,
                            const char* restart = "") {
  if (pixel_format < 0) pixel_format = subsampling == TJSAMP_GRAY ? TJPF_GRAY : TJPF_RGB;
  struct RestartSetting {
    explicit RestartSetting(const char* interval) {
      if (*interval != '\0') setenv("TJ_RESTART", interval, 1);
    }
    ~RestartSetting() { unsetenv("TJ_RESTART"); }
  } restart_setting(restart);
  tjhandle handle = tjInitCompress();
  unsigned char* jpeg = nullptr;
  unsigned long size = 0;
  const int rc = tjCompress2(handle, pixels.data(), width, 0, height, pixel_format, &jpeg, &size,
                             subsampling, quality, flags | TJFLAG_ACCURATEDCT);
  std::string error = rc != 0 ? tjGetErrorStr2(handle) : "";
  tjDestroy(handle);
  if (rc != 0) throw std::runtime_error("tjCompress2: " + error);
  Bytes out(jpeg, jpeg + size);
  tjFree(jpeg);
  return out;
}

// The region's bytes at the start of a decode's destination, which holds at least them (it is
// grown, never shrunk).
inline Bytes RegionBytes(const Bytes& dest, int64_t height, int64_t width, int channels) {
  const auto size = static_cast<size_t>(height * width * channels);
  if (dest.size() < size) throw std::runtime_error("the destination is smaller than the region");
  return Bytes(dest.begin(), dest.begin() + static_cast<ptrdiff_t>(size));
}

// TurboJPEG's whole-image decode at 1/scale (libjpeg's scale_denom), with PIL's settings.
struct Reference {
  Bytes pixels;
  int height = 0, width = 0, channels = 0;
};

inline Reference TurboDecode(std::span<const uint8_t> jpeg, int channels, int scale = 1) {
  tjhandle handle = tjInitDecompress();
  int width = 0, height = 0, subsampling = 0, colorspace = 0;
  tjDecompressHeader3(handle, jpeg.data(), jpeg.size(), &width, &height, &subsampling, &colorspace);
  Reference out;
  out.width = TJSCALED(width, (tjscalingfactor{1, scale}));
  out.height = TJSCALED(height, (tjscalingfactor{1, scale}));
  out.channels = channels;
  out.pixels.resize(static_cast<size_t>(out.width) * out.height * channels);
  const int rc =
      tjDecompress2(handle, jpeg.data(), jpeg.size(), out.pixels.data(), out.width, 0, out.height,
                    channels == 1 ? TJPF_GRAY : TJPF_RGB, TJFLAG_ACCURATEDCT);
  std::string error = rc != 0 ? tjGetErrorStr2(handle) : "";
  tjDestroy(handle);
  if (rc != 0) throw std::runtime_error("tjDecompress2: " + error);
  return out;
}

}  // namespace h5feed::decode::testing
