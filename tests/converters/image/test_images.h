#pragma once
// Encoders for the image tests: each turns raw samples into the bytes of a real file with the
// same library a user's files come from (TurboJPEG, libspng, libwebp, OpenCV imgcodecs), so
// the decoders are tested on genuine encoder output rather than canned files.

#include <spng.h>
#include <turbojpeg.h>
#include <webp/decode.h>
#include <webp/encode.h>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace h5feed::converters::image::testing {

using Bytes = std::vector<uint8_t>;

// A deterministic RGB (or `channels`) pattern with edges, gradients and texture.
inline Bytes Pattern(int height, int width, int channels = 3, uint32_t seed = 1) {
  Bytes out(static_cast<size_t>(height) * width * channels);
  uint32_t state = seed * 2654435761u + 1;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < channels; ++c) {
        state = state * 1664525u + 1013904223u;
        const int smooth = (x * 255 / width + y * 128 / height + c * 60) % 256;
        out[(static_cast<size_t>(y) * width + x) * channels + c] =
            static_cast<uint8_t>((smooth + static_cast<int>(state >> 28)) % 256);
      }
    }
  }
  return out;
}

inline Bytes Uniform(int height, int width, uint8_t r, uint8_t g, uint8_t b) {
  Bytes out(static_cast<size_t>(height) * width * 3);
  for (size_t i = 0; i < out.size(); i += 3) {
    out[i] = r;
    out[i + 1] = g;
    out[i + 2] = b;
  }
  return out;
}

// pixel_format: TJPF_RGB, TJPF_GRAY or TJPF_CMYK; subsampling: TJSAMP_444, TJSAMP_420, ...
inline Bytes EncodeJpeg(std::span<const uint8_t> pixels, int height, int width,
                        int pixel_format = TJPF_RGB, int subsampling = TJSAMP_420, int quality = 90,
                        int flags = 0) {
  tjhandle handle = tjInitCompress();
  unsigned char* jpeg = nullptr;
  unsigned long size = 0;
  const int rc = tjCompress2(handle, pixels.data(), width, 0, height, pixel_format, &jpeg, &size,
                             pixel_format == TJPF_GRAY ? TJSAMP_GRAY : subsampling, quality, flags);
  tjDestroy(handle);
  if (rc != 0) throw std::runtime_error("tjCompress2 failed");
  Bytes out(jpeg, jpeg + size);
  tjFree(jpeg);
  return out;
}

// `samples` in the PNG's own layout for SPNG_FMT_PNG (16-bit samples in host order).
inline Bytes EncodePng(const void* samples, size_t bytes, int height, int width, uint8_t color_type,
                       uint8_t bit_depth, const std::vector<spng_plte_entry>& palette = {},
                       bool interlaced = false) {
  spng_ctx* ctx = spng_ctx_new(SPNG_CTX_ENCODER);
  spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1);
  spng_ihdr ihdr{};
  ihdr.width = static_cast<uint32_t>(width);
  ihdr.height = static_cast<uint32_t>(height);
  ihdr.color_type = color_type;
  ihdr.bit_depth = bit_depth;
  ihdr.interlace_method = interlaced ? SPNG_INTERLACE_ADAM7 : SPNG_INTERLACE_NONE;
  spng_set_ihdr(ctx, &ihdr);
  if (!palette.empty()) {
    spng_plte plte{};
    plte.n_entries = static_cast<uint32_t>(palette.size());
    for (size_t i = 0; i < palette.size(); ++i) plte.entries[i] = palette[i];
    spng_set_plte(ctx, &plte);
  }
  int rc = spng_encode_image(ctx, samples, bytes, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
  size_t size = 0;
  void* png = rc == 0 ? spng_get_png_buffer(ctx, &size, &rc) : nullptr;
  spng_ctx_free(ctx);
  if (rc != 0 || png == nullptr) {
    throw std::runtime_error(std::string("spng: ") + spng_strerror(rc));
  }
  Bytes out(static_cast<uint8_t*>(png), static_cast<uint8_t*>(png) + size);
  std::free(png);
  return out;
}

// Pattern(height, width, 3, seed) as an 8-bit RGB PNG.
inline Bytes PatternPng(int height, int width, uint32_t seed = 1) {
  const Bytes rgb = Pattern(height, width, 3, seed);
  return EncodePng(rgb.data(), rgb.size(), height, width, SPNG_COLOR_TYPE_TRUECOLOR, 8);
}

inline Bytes EncodeWebp(std::span<const uint8_t> pixels, int height, int width, bool alpha,
                        bool lossless, float quality = 90) {
  uint8_t* webp = nullptr;
  const int stride = width * (alpha ? 4 : 3);
  size_t size = 0;
  if (lossless) {
    size = alpha ? WebPEncodeLosslessRGBA(pixels.data(), width, height, stride, &webp)
                 : WebPEncodeLosslessRGB(pixels.data(), width, height, stride, &webp);
  } else {
    size = alpha ? WebPEncodeRGBA(pixels.data(), width, height, stride, quality, &webp)
                 : WebPEncodeRGB(pixels.data(), width, height, stride, quality, &webp);
  }
  if (size == 0) throw std::runtime_error("WebPEncode failed");
  Bytes out(webp, webp + size);
  WebPFree(webp);
  return out;
}

// `ext` is ".bmp", ".ppm", ".pgm", ".tiff", ...; `pixels` RGB (or gray with channels = 1).
inline Bytes EncodeOpenCv(const std::string& ext, std::span<const uint8_t> pixels, int height,
                          int width, int channels = 3) {
  cv::Mat image(height, width, channels == 3 ? CV_8UC3 : CV_8UC1,
                const_cast<uint8_t*>(pixels.data()));
  cv::Mat bgr;
  if (channels == 3) {
    cv::cvtColor(image, bgr, cv::COLOR_RGB2BGR);
  } else {
    bgr = image;
  }
  std::vector<uint8_t> out;
  if (!cv::imencode(ext, bgr, out)) throw std::runtime_error("cv::imencode failed for " + ext);
  return out;
}

inline int MaxAbsDiff(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  int worst = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    worst = std::max(worst, std::abs(int{a[i]} - int{b[i]}));
  }
  return worst;
}

}  // namespace h5feed::converters::image::testing
