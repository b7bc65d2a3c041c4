#include "image/jpeg_decoder.h"

#include <turbojpeg.h>

#include <optional>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "image/decode_checks.h"
#include "make_error.h"

namespace h5feed::converters::image {
namespace {

constexpr std::string_view kJpeg = "JPEG";

// libjpeg reports damage in two ways: errors (no image at all) and warnings, after which it
// still delivers a complete image. PIL decodes through warnings such as "Corrupt JPEG data:
// 3 extraneous bytes before marker" and gets the very pixels TurboJPEG gives, so to equal
// PIL they are accepted too, with one exception: a truncated file, which libjpeg pads with
// gray and PIL refuses ("image file is truncated"). TJFLAG_STOPONWARNING cannot tell the two
// apart, so decoding runs through warnings and the outcome is read from the message.
// TJFLAG_LIMITSCANS rejects progressive files with hundreds of scans, which take minutes to
// decode and occur only in hostile inputs.
constexpr int kDecodeFlags = TJFLAG_LIMITSCANS;

// The start of each libjpeg-turbo warning text (jerror.h, JWRN_*), up to its first format
// directive. JWRN_JPEG_EOF ("Premature end of JPEG file", a truncated file) is left out.
constexpr std::string_view kHarmlessWarnings[] = {
    "Corrupt JPEG data: ",  // extraneous bytes, bad Huffman/arithmetic code, missing RST, ICC
    "Unknown Adobe color transform code ",
    "Inconsistent progression sequence for component ",
    "Warning: unknown JFIF revision number ",
    "Invalid SOS parameters for sequential JPEG",
    "Application transferred too many scanlines",
};

// Whether a TurboJPEG call that returned -1 still produced the image PIL produces. TurboJPEG
// 2.1 keeps the text of the first warning of a call (libjpeg prints only the first) unless an
// error follows and replaces it, and flags TJERR_WARNING even then; so the outcome is
// harmless exactly when the flag is set and the text is a warning other than JWRN_JPEG_EOF.
// (A file both damaged and truncated gets through as what libjpeg decodes; PIL refuses it.)
bool OnlyHarmlessWarnings(tjhandle handle, std::string_view message) {
  if (tjGetErrorCode(handle) != TJERR_WARNING) return false;
  for (std::string_view warning : kHarmlessWarnings) {
    if (message.starts_with(warning)) return true;
  }
  return false;
}

// Owns one TurboJPEG decompressor. tjInitDecompress allocates the libjpeg state (tens of KiB),
// so each thread keeps one instead of creating one per image.
class Decompressor {
 public:
  Decompressor() : handle_(tjInitDecompress()) {
    if (handle_ == nullptr) {
      throw MakeError(ErrorCode::kInternal, "cannot create a TurboJPEG decompressor: {}",
                      tjGetErrorStr2(nullptr));
    }
  }
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;
  ~Decompressor() { tjDestroy(handle_); }

  tjhandle get() const { return handle_; }

 private:
  tjhandle handle_;
};

// The calling thread's decompressor. After a failure libjpeg's state is left wherever the error
// longjmp'ed out of (mid-header, mid-scan), and TurboJPEG 2.1 does not fully reset it for the
// next image: a later header read can then report a 0x0 image. So a failed decode discards
// the thread's decompressor (DiscardThreadDecompressor) and the next call makes a new one.
thread_local std::optional<Decompressor> t_decompressor;

tjhandle ThreadDecompressor() {
  if (!t_decompressor) t_decompressor.emplace();
  return t_decompressor->get();
}

void DiscardThreadDecompressor() { t_decompressor.reset(); }

// Runs `decode`, discarding the thread's decompressor if it throws.
template <typename Function>
auto WithFreshStateOnError(Function&& decode) {
  try {
    return decode();
  } catch (...) {
    DiscardThreadDecompressor();
    throw;
  }
}

struct JpegHeader {
  int height = 0;
  int width = 0;
  int colorspace = TJCS_YCbCr;
  int subsampling = -1;  // TJSAMP_*, -1 when TurboJPEG has no constant for it
};

JpegHeader ReadHeader(tjhandle handle, std::span<const uint8_t> encoded, std::string_view name) {
  JpegHeader header;
  const int rc =
      tjDecompressHeader3(handle, encoded.data(), static_cast<unsigned long>(encoded.size()),
                          &header.width, &header.height, &header.subsampling, &header.colorspace);
  if (rc != 0) {
    // tjGetErrorStr2 clears the handle's error, so it is read once.
    const std::string message = tjGetErrorStr2(handle);
    // TurboJPEG 2.1 fails on chroma sampling factors it has no TJSAMP constant for, after
    // reading the sizes; tjDecompress2 decodes such files (as PIL does), so they go through.
    const bool sizes_read = header.width > 0 && header.height > 0;
    const bool unknown_subsampling = message.find("subsampling") != std::string::npos;
    if (!sizes_read || !(unknown_subsampling || OnlyHarmlessWarnings(handle, message))) {
      ThrowCorrupt(kJpeg, name, fmt::format("unreadable header ({})", message));
    }
  }
  CheckImageSize(header.height, header.width, 3, kJpeg, name);
  return header;
}

// After tjDecompress2 returned -1: throws unless only harmless warnings were raised.
void CheckDecodeOutcome(tjhandle handle, std::string_view name) {
  const std::string message = tjGetErrorStr2(handle);
  if (!OnlyHarmlessWarnings(handle, message)) {
    ThrowCorrupt(kJpeg, name, fmt::format("damaged or truncated data ({})", message));
  }
}

bool IsCmyk(int colorspace) { return colorspace == TJCS_CMYK || colorspace == TJCS_YCCK; }

// PIL opens every 4-component JPEG as mode "CMYK" with raw mode "CMYK;I" ("assume adobe
// conventions": Photoshop stores CMYK inverted, and libjpeg hands the stored values through),
// so its C, M, Y, K are 255 minus libjpeg's. convert('RGB') then computes, per channel
// (Pillow 9.4 libImaging/Convert.c, cmyk2rgb):
//   nk = 255 - K;  R = nk - MULDIV255(C, nk)  with MULDIV255(a, b) = (t + (t >> 8)) >> 8,
//   t = a * b + 128.
// In libjpeg's terms (c = 255 - C, k = 255 - K): R = k - MULDIV255(255 - c, k).
// Verified against PIL for every value pair in test_decode_matches_pil.py.
inline uint8_t CmykChannelToRgb(uint8_t stored_channel, uint8_t stored_k) {
  const int t = (255 - stored_channel) * stored_k + 128;
  return static_cast<uint8_t>(stored_k - (((t >> 8) + t) >> 8));
}

void DecodeCmyk(tjhandle handle, std::span<const uint8_t> encoded, const DecodePlan& plan,
                std::string_view name, std::span<uint8_t> rgb) {
  CheckImageSize(plan.height, plan.width, 4, kJpeg, name);
  // TurboJPEG cannot convert CMYK to RGB itself. The buffer is the call's own (counted in
  // DecodePlan::scratch_bytes), not kept for the next image: CMYK files are rare, and a buffer
  // kept per thread would hold the largest one seen for the rest of the conversion.
  std::vector<uint8_t> cmyk(static_cast<size_t>(plan.height) * plan.width * 4);
  if (tjDecompress2(handle, encoded.data(), static_cast<unsigned long>(encoded.size()), cmyk.data(),
                    plan.width, plan.width * 4, plan.height, TJPF_CMYK, kDecodeFlags) != 0) {
    CheckDecodeOutcome(handle, name);
  }
  const size_t pixels = static_cast<size_t>(plan.height) * plan.width;
  const uint8_t* in = cmyk.data();
  uint8_t* out = rgb.data();
  for (size_t i = 0; i < pixels; ++i, in += 4, out += 3) {
    out[0] = CmykChannelToRgb(in[0], in[3]);
    out[1] = CmykChannelToRgb(in[1], in[3]);
    out[2] = CmykChannelToRgb(in[2], in[3]);
  }
}

void DecodeWithThreadDecompressor(std::span<const uint8_t> encoded, const DecodePlan& plan,
                                  std::string_view name, std::span<uint8_t> rgb) {
  tjhandle handle = ThreadDecompressor();
  // tjDecompress2 sizes its output from the file's own header: a plan made for other bytes
  // would overrun `rgb`, so the header is checked against the plan (it costs microseconds).
  const JpegHeader header = ReadHeader(handle, encoded, name);
  if (header.height != plan.full_height || header.width != plan.full_width) {
    throw MakeError(ErrorCode::kInternal, "JPEG decode plan for '{}' does not match its header",
                    name);
  }
  if (IsCmyk(header.colorspace)) {
    DecodeCmyk(handle, encoded, plan, name, rgb);
    return;
  }
  // Grayscale JPEGs decode straight to RGB: libjpeg replicates the gray value into R, G and
  // B, as PIL's convert('RGB') of mode "L" does.
  if (tjDecompress2(handle, encoded.data(), static_cast<unsigned long>(encoded.size()), rgb.data(),
                    plan.width, plan.width * 3, plan.height, TJPF_RGB, kDecodeFlags) != 0) {
    CheckDecodeOutcome(handle, name);
  }
}

// Whether the frame is progressive (SOF2, SOF6, SOF10, SOF14), found by walking the marker
// segments up to the first start of frame; unknown (a header cut short) counts as progressive.
bool IsProgressive(std::span<const uint8_t> b) {
  size_t at = 2;  // after SOI
  while (at + 4 <= b.size()) {
    if (b[at] != 0xFF) return true;  // not a marker where one must be: assume the worst
    const uint8_t marker = b[at + 1];
    if (marker == 0xFF) {  // fill byte
      ++at;
      continue;
    }
    if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD8)) {  // TEM, RSTn, SOI: no length
      at += 2;
      continue;
    }
    if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC) {
      return (marker & 0x03) == 0x02;  // C2, C6, CA, CE
    }
    at += 2 + (size_t{b[at + 2]} << 8 | b[at + 3]);
  }
  return true;
}

// What libjpeg allocates while decoding, beyond the output: its sample rows (a few MCU rows of
// the full width) and, for a progressive file, every DCT coefficient of the image, 2 bytes per
// sample of each component at its own resolution, whatever the output scale; a CMYK file also
// decodes into a 4-byte-per-pixel buffer of the output size first.
int64_t JpegScratchBytes(std::span<const uint8_t> encoded, const JpegHeader& header,
                         const DecodePlan& plan) {
  const bool cmyk = IsCmyk(header.colorspace);
  // Samples per pixel over all components, chroma subsampling included.
  double planes = cmyk ? 4 : 3;
  switch (header.subsampling) {
    case TJSAMP_GRAY: planes = 1; break;
    case TJSAMP_420:
    case TJSAMP_411: planes = 1.5; break;
    case TJSAMP_422:
    case TJSAMP_440: planes = 2; break;
    default: break;
  }
  // Dimensions rounded up to whole 16 x 16 MCUs.
  const int64_t padded =
      ((int64_t{header.width} + 15) / 16 * 16) * ((int64_t{header.height} + 15) / 16 * 16);
  int64_t bytes = int64_t{header.width} * 4 * 16 * 4 + (256 << 10);
  if (IsProgressive(encoded)) {
    bytes += static_cast<int64_t>(planes * 2 * static_cast<double>(padded));
  }
  if (cmyk) bytes += int64_t{plan.height} * plan.width * 4;
  return bytes;
}

}  // namespace

DecodePlan PlanJpeg(std::span<const uint8_t> encoded, std::string_view name, int min_height,
                    int min_width) {
  const JpegHeader header =
      WithFreshStateOnError([&] { return ReadHeader(ThreadDecompressor(), encoded, name); });
  DecodePlan plan;
  plan.format = Format::kJpeg;
  plan.full_height = plan.height = header.height;
  plan.full_width = plan.width = header.width;
  if (min_height <= 0 && min_width <= 0) {
    plan.scratch_bytes = JpegScratchBytes(encoded, header, plan);
    return plan;
  }

  // Only the power-of-two scales: libjpeg-turbo has SIMD inverse DCTs for 8x8, 4x4, 2x2 and
  // 1x1 blocks, while 3/8, 5/8, ... run in plain C and can be slower than a full decode.
  int count = 0;
  const tjscalingfactor* factors = tjGetScalingFactors(&count);
  tjscalingfactor best{1, 1};
  for (int i = 0; i < count; ++i) {
    const tjscalingfactor f = factors[i];
    if (f.num != 1 || (f.denom != 2 && f.denom != 4 && f.denom != 8)) continue;
    if (TJSCALED(header.height, f) < min_height || TJSCALED(header.width, f) < min_width) {
      continue;
    }
    if (f.denom > best.denom) best = f;
  }
  plan.height = TJSCALED(header.height, best);
  plan.width = TJSCALED(header.width, best);
  plan.scratch_bytes = JpegScratchBytes(encoded, header, plan);
  return plan;
}

void DecodeJpeg(std::span<const uint8_t> encoded, const DecodePlan& plan, std::string_view name,
                std::span<uint8_t> rgb) {
  WithFreshStateOnError([&] { DecodeWithThreadDecompressor(encoded, plan, name, rgb); });
}

}  // namespace h5feed::converters::image
