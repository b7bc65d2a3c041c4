#include "image/jpeg_encoder.h"

#include <turbojpeg.h>

// jpeglib.h needs FILE and size_t declared first.
#include <csetjmp>
#include <cstdio>
#include <optional>
#include <string>

#include <jerror.h>
#include <jpeglib.h>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::converters::image {
namespace {

// JPEG stores each side in 16 bits, and libjpeg refuses sides over 65500 (JPEG_MAX_DIMENSION).
constexpr int64_t kMaxSide = 65500;
// What a restart marker adds at most: the marker, and the bits that pad the entropy-coded data
// before it to a whole byte.
constexpr int64_t kRestartBytes = 3;

// The MCUs along a side of `pixels`: MCUs are 16 x 16 pixels at 4:2:0, 8 x 8 in grayscale.
int64_t McusAlong(int64_t pixels, int channels) {
  const int64_t side = channels == 1 ? 8 : 16;
  return (pixels + side - 1) / side;
}

// The restart interval, in MCUs: a segment of 2 MCUs where a row holds an even count of them,
// else 1, so that every row is whole segments (decode/jpeg_restart_cut.h). Markers after every
// 2 MCUs made photos 3.8% larger than markers after every row, after every MCU 7.8%.
int64_t RestartInterval(int64_t width, int channels) {
  return McusAlong(width, channels) % 2 == 0 ? 2 : 1;
}

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

// libjpeg reports a failure by calling error_exit, which must not return: it jumps back to the
// guarded function that made the call (jpeg_decompressor.h in lib/decode explains the rule:
// no object with a destructor lives in the frames the jump leaves).
struct EncodeTrap {
  jpeg_error_mgr manager;  // first member: libjpeg's callbacks get a pointer to it
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX] = {};
};

void JumpOnError(j_common_ptr cinfo) {
  auto* trap = reinterpret_cast<EncodeTrap*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, trap->message);
  std::longjmp(trap->jump, 1);
}

// Writes into a buffer sized for the largest JPEG the image can give (MaxJpegBytes), so it is
// never full: being asked for more space is a libjpeg error.
void StartDestination(j_compress_ptr) {}
boolean DestinationFull(j_compress_ptr cinfo) {
  cinfo->err->msg_code = JERR_BUFFER_SIZE;
  (*cinfo->err->error_exit)(reinterpret_cast<j_common_ptr>(cinfo));
  return FALSE;
}
void EndDestination(j_compress_ptr) {}

// One libjpeg compressor (its state and working buffers), kept per thread.
class Compressor {
 public:
  Compressor() {
    cinfo_.err = jpeg_std_error(&trap_.manager);
    trap_.manager.error_exit = JumpOnError;
    jpeg_create_compress(&cinfo_);
    destination_.init_destination = StartDestination;
    destination_.empty_output_buffer = DestinationFull;
    destination_.term_destination = EndDestination;
    cinfo_.dest = &destination_;
  }
  Compressor(const Compressor&) = delete;
  Compressor& operator=(const Compressor&) = delete;
  ~Compressor() { jpeg_destroy_compress(&cinfo_); }

  jpeg_compress_struct* cinfo() { return &cinfo_; }
  EncodeTrap* trap() { return &trap_; }
  jpeg_destination_mgr* destination() { return &destination_; }

 private:
  EncodeTrap trap_;
  jpeg_destination_mgr destination_{};
  jpeg_compress_struct cinfo_{};
};

thread_local std::optional<Compressor> t_compressor;

// PIL's and TurboJPEG's settings (baseline, accurate integer DCT, 4:2:0 for colour), and a
// restart marker after every segment of RestartInterval MCUs: a reader that needs only a box of
// the image decodes the segments around it instead of entropy-decoding every MCU before and
// beside it (decode/jpeg_restart_cut.h). Returns false when the trap fired.
bool GuardedEncode(jpeg_compress_struct* cinfo, EncodeTrap* trap, const uint8_t* pixels,
                   JDIMENSION height, JDIMENSION width, int channels, int quality, uint8_t* out,
                   size_t capacity) {
  if (setjmp(trap->jump) != 0) return false;
  cinfo->dest->next_output_byte = out;
  cinfo->dest->free_in_buffer = capacity;
  cinfo->image_height = height;
  cinfo->image_width = width;
  cinfo->input_components = channels;
  cinfo->in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(cinfo);
  jpeg_set_quality(cinfo, quality, TRUE);
  cinfo->dct_method = JDCT_ISLOW;
  cinfo->restart_interval = static_cast<unsigned int>(RestartInterval(width, channels));
  jpeg_start_compress(cinfo, TRUE);
  const size_t row_bytes = size_t{width} * static_cast<size_t>(channels);
  while (cinfo->next_scanline < cinfo->image_height) {
    // libjpeg's row type is not const, but compression only reads the rows.
    JSAMPROW row = const_cast<uint8_t*>(pixels) + cinfo->next_scanline * row_bytes;
    jpeg_write_scanlines(cinfo, &row, 1);
  }
  jpeg_finish_compress(cinfo);
  return true;
}

}  // namespace

int64_t MaxJpegBytes(int64_t height, int64_t width, int channels) {
  CheckShape(height, width, channels);
  const unsigned long bytes =
      tjBufSize(static_cast<int>(width), static_cast<int>(height), Subsampling(channels));
  if (bytes == static_cast<unsigned long>(-1)) {
    throw MakeError(ErrorCode::kInvalidArgument, "tjBufSize refused the image: {}",
                    tjGetErrorStr2(nullptr));
  }
  const int64_t mcus = McusAlong(height, channels) * McusAlong(width, channels);
  return static_cast<int64_t>(bytes) + kRestartBytes * mcus / RestartInterval(width, channels);
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
  out.resize(static_cast<size_t>(MaxJpegBytes(height, width, channels)));
  if (!t_compressor) t_compressor.emplace();
  Compressor& compressor = *t_compressor;
  if (!GuardedEncode(compressor.cinfo(), compressor.trap(), pixels.data(),
                     static_cast<JDIMENSION>(height), static_cast<JDIMENSION>(width), channels,
                     quality, out.data(), out.size())) {
    const std::string message = compressor.trap()->message;
    // A failed call may leave libjpeg's state mid-image: the next call starts a new one.
    t_compressor.reset();
    out.clear();
    throw MakeError(ErrorCode::kInternal, "libjpeg could not encode a {}x{} image: {}", height,
                    width, message);
  }
  out.resize(out.size() - compressor.destination()->free_in_buffer);
}

}  // namespace h5feed::converters::image
