#include "image/jpeg_encoder.h"

#include <turbojpeg.h>

#include <optional>
#include <string>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::image {
namespace {

// JPEG stores each side in 16 bits, and libjpeg refuses sides over 65500 (JPEG_MAX_DIMENSION).
constexpr int64_t kMaxSide = 65500;

void CheckShape(int64_t height, int64_t width, int channels) {
  if (height < 1 || width < 1 || height > kMaxSide || width > kMaxSide ||
      (channels != 1 && channels != 3)) {
    throw MakeError(
        ErrorCode::kInvalidArgument,
        "cannot encode a {}x{}x{} image as JPEG: sides must be 1 to {} and channels 1 or 3", height,
        width, channels, kMaxSide);
  }
}

int Subsampling(int channels) { return channels == 1 ? TJSAMP_GRAY : TJSAMP_420; }

// Owns one TurboJPEG compressor (the libjpeg state and its working buffers), kept per thread.
class Compressor {
 public:
  Compressor() : handle_(tjInitCompress()) {
    if (handle_ == nullptr) {
      throw MakeError(ErrorCode::kInternal, "cannot create a TurboJPEG compressor: {}",
                      tjGetErrorStr2(nullptr));
    }
  }
  Compressor(const Compressor&) = delete;
  Compressor& operator=(const Compressor&) = delete;
  ~Compressor() { tjDestroy(handle_); }

  tjhandle get() const { return handle_; }

 private:
  tjhandle handle_;
};

// A failed call may leave libjpeg's state mid-image, so it is discarded and the next call makes
// a new one (as converters/image/jpeg_decoder.cc does for its decompressor).
thread_local std::optional<Compressor> t_compressor;

}  // namespace

int64_t MaxJpegBytes(int64_t height, int64_t width, int channels) {
  CheckShape(height, width, channels);
  const unsigned long bytes =
      tjBufSize(static_cast<int>(width), static_cast<int>(height), Subsampling(channels));
  if (bytes == static_cast<unsigned long>(-1)) {
    throw MakeError(ErrorCode::kInvalidArgument, "tjBufSize refused the image: {}",
                    tjGetErrorStr2(nullptr));
  }
  return static_cast<int64_t>(bytes);
}

void EncodeJpeg(std::span<const uint8_t> pixels, int64_t height, int64_t width, int channels,
                int quality, std::vector<uint8_t>& out) {
  CheckShape(height, width, channels);
  if (quality < 1 || quality > 100) {
    throw MakeError(ErrorCode::kInvalidArgument, "JPEG quality {} is not within 1-100", quality);
  }
  if (pixels.size() != static_cast<size_t>(height * width * channels)) {
    throw MakeError(ErrorCode::kInvalidArgument, "cannot encode {} bytes as a {}x{}x{} image",
                    pixels.size(), height, width, channels);
  }
  // TurboJPEG writes into `out` in place: sized to the most it can need, then cut to what it
  // wrote. TJFLAG_NOREALLOC keeps it from replacing the buffer; TJFLAG_ACCURATEDCT is libjpeg's
  // JDCT_ISLOW, what PIL encodes with (TurboJPEG's default when compressing is the fast DCT).
  out.resize(static_cast<size_t>(MaxJpegBytes(height, width, channels)));
  unsigned char* buffer = out.data();
  unsigned long size = out.size();
  if (!t_compressor) t_compressor.emplace();
  const int rc =
      tjCompress2(t_compressor->get(), pixels.data(), static_cast<int>(width), 0,
                  static_cast<int>(height), channels == 1 ? TJPF_GRAY : TJPF_RGB, &buffer, &size,
                  Subsampling(channels), quality, TJFLAG_NOREALLOC | TJFLAG_ACCURATEDCT);
  if (rc != 0) {
    const std::string message = tjGetErrorStr2(t_compressor->get());
    t_compressor.reset();
    out.clear();
    throw MakeError(ErrorCode::kInternal, "TurboJPEG could not encode a {}x{} image: {}", height,
                    width, message);
  }
  out.resize(size);
}

}  // namespace h5feed::image
