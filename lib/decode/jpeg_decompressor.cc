#include "decode/jpeg_decompressor.h"

#include <string>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::decode {
namespace {

// A progressive JPEG may have any number of scans, each a pass over the whole image: hostile
// files with thousands take minutes to decode. 500 is TurboJPEG's TJFLAG_LIMITSCANS limit; an
// encoder's progressive files have about 10.
constexpr int kMaxScans = 500;

JpegErrorTrap* TrapOf(j_common_ptr cinfo) {
  // The manager is the trap's first member, and the trap is standard-layout.
  return reinterpret_cast<JpegErrorTrap*>(cinfo->err);
}

[[noreturn]] void JumpOut(j_common_ptr cinfo) {
  JpegErrorTrap* trap = TrapOf(cinfo);
  (*cinfo->err->format_message)(cinfo, trap->message);
  std::longjmp(trap->jump, 1);
}

// libjpeg calls emit_message with level -1 for a warning (the data is damaged, decoding would
// go on), 0 and above for trace messages, which are ignored.
void OnMessage(j_common_ptr cinfo, int level) {
  if (level < 0) JumpOut(cinfo);
}

void OnProgress(j_common_ptr cinfo) {
  if (!cinfo->is_decompressor) return;
  auto* decompress = reinterpret_cast<j_decompress_ptr>(cinfo);
  if (decompress->input_scan_number > kMaxScans) {
    JpegErrorTrap* trap = TrapOf(cinfo);
    std::snprintf(trap->message, sizeof(trap->message),
                  "more than %d progressive scans (a hostile file)", kMaxScans);
    std::longjmp(trap->jump, 1);
  }
}

bool GuardedCreate(jpeg_decompress_struct* cinfo, JpegErrorTrap* trap) {
  if (setjmp(trap->jump) != 0) return false;
  jpeg_create_decompress(cinfo);
  return true;
}

bool GuardedReadHeader(jpeg_decompress_struct* cinfo, JpegErrorTrap* trap, const uint8_t* data,
                       size_t size) {
  if (setjmp(trap->jump) != 0) return false;
  jpeg_mem_src(cinfo, data, static_cast<unsigned long>(size));
  jpeg_read_header(cinfo, TRUE);
  return true;
}

}  // namespace

JpegDecompressor::JpegDecompressor() {
  cinfo_.err = jpeg_std_error(&trap_.manager);
  trap_.manager.error_exit = JumpOut;
  trap_.manager.emit_message = OnMessage;
  if (!GuardedCreate(&cinfo_, &trap_)) {
    throw MakeError(ErrorCode::kInternal, "cannot create a libjpeg decompressor: {}",
                    trap_.message);
  }
  trap_.progress.progress_monitor = OnProgress;
  cinfo_.progress = &trap_.progress;
}

JpegDecompressor::~JpegDecompressor() { jpeg_destroy_decompress(&cinfo_); }

void JpegDecompressor::Abort() { jpeg_abort_decompress(&cinfo_); }

void JpegDecompressor::FailWithTrappedMessage() { Fail(trap_.message); }

void JpegDecompressor::Fail(const std::string& message) {
  Abort();
  throw MakeError(ErrorCode::kCorrupt, "JPEG: {}", message);
}

JpegInfo JpegDecompressor::ReadHeader(std::span<const uint8_t> jpeg) {
  if (!GuardedReadHeader(&cinfo_, &trap_, jpeg.data(), jpeg.size())) FailWithTrappedMessage();
  // libjpeg-turbo 2.1 built for 8-bit samples refuses other precisions while reading the
  // header; the check stays for a build that accepts 12-bit.
  if (cinfo_.data_precision != 8) {
    Fail(fmt::format("{}-bit samples (h5feed delivers 8-bit)", cinfo_.data_precision));
  }
  JpegInfo info{.height = cinfo_.image_height, .width = cinfo_.image_width, .channels = 0};
  if (cinfo_.num_components == 1 && cinfo_.jpeg_color_space == JCS_GRAYSCALE) {
    info.channels = 1;
  } else if (cinfo_.num_components == 3 &&
             (cinfo_.jpeg_color_space == JCS_YCbCr || cinfo_.jpeg_color_space == JCS_RGB)) {
    info.channels = 3;
  } else {
    Fail(fmt::format(
        "{} components in color space {} (h5feed delivers grayscale or YCbCr/RGB only, not CMYK or "
        "YCCK)",
        cinfo_.num_components, static_cast<int>(cinfo_.jpeg_color_space)));
  }
  return info;
}

}  // namespace h5feed::decode
