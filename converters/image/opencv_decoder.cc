#include "image/opencv_decoder.h"

#include <dlfcn.h>

#include <array>
#include <cctype>
#include <optional>
#include <string>

#include "h5feed/error.h"
#include "image/decode_checks.h"
#include "image/opencv_codecs_module.h"
#include "make_error.h"
#include "process/helper_location.h"

namespace h5feed::converters::image {
namespace {

enum class Kind { kBmp, kPnm, kTiff };

std::string_view KindName(Kind kind) {
  switch (kind) {
    case Kind::kBmp: return "BMP";
    case Kind::kPnm: return "PNM";
    case Kind::kTiff: return "TIFF";
  }
  return "image";
}

std::optional<Kind> Sniff(std::span<const uint8_t> b) {
  if (b.size() >= 2 && b[0] == 'B' && b[1] == 'M') return Kind::kBmp;
  if (b.size() >= 3 && b[0] == 'P' && b[1] >= '1' && b[1] <= '6' && std::isspace(b[2])) {
    return Kind::kPnm;
  }
  if (b.size() >= 4 && ((b[0] == 'I' && b[1] == 'I' && b[2] == 42 && b[3] == 0) ||
                        (b[0] == 'M' && b[1] == 'M' && b[2] == 0 && b[3] == 42))) {
    return Kind::kTiff;
  }
  return std::nullopt;
}

struct Dimensions {
  int64_t height = 0;
  int64_t width = 0;
  // Where the pixels start and how many bytes the header announces for them, when the format
  // fixes it (uncompressed BMP, binary PNM); -1 otherwise. A file shorter than that is
  // refused before OpenCV sees it: OpenCV prints its own complaint to stderr on truncated
  // files, on top of the error h5feed reports.
  int64_t data_offset = -1;
  int64_t data_bytes = -1;
};

// Bounds-checked integer reads; nullopt past the end of the buffer.
std::optional<uint32_t> ReadUint(std::span<const uint8_t> b, size_t offset, int bytes,
                                 bool big_endian) {
  if (offset > b.size() || b.size() - offset < static_cast<size_t>(bytes)) return std::nullopt;
  uint32_t v = 0;
  for (int i = 0; i < bytes; ++i) {
    const uint32_t byte = b[offset + (big_endian ? i : bytes - 1 - i)];
    v = (v << 8) | byte;
  }
  return v;
}

// BITMAPCOREHEADER (12 bytes) stores 16-bit sizes; every later header 32-bit signed ones, a
// negative height meaning rows stored top-down.
std::optional<Dimensions> BmpDimensions(std::span<const uint8_t> b) {
  const auto header_size = ReadUint(b, 14, 4, false);
  const auto data_offset = ReadUint(b, 10, 4, false);
  if (!header_size || !data_offset) return std::nullopt;
  Dimensions dims;
  std::optional<uint32_t> bits, compression = 0;
  if (*header_size == 12) {
    const auto w = ReadUint(b, 18, 2, false), h = ReadUint(b, 20, 2, false);
    if (!w || !h) return std::nullopt;
    dims.height = *h;
    dims.width = *w;
    bits = ReadUint(b, 24, 2, false);
  } else {
    const auto w = ReadUint(b, 18, 4, false), h = ReadUint(b, 22, 4, false);
    if (!w || !h) return std::nullopt;
    const int64_t height = static_cast<int32_t>(*h);
    dims.height = height < 0 ? -height : height;
    dims.width = static_cast<int32_t>(*w);
    bits = ReadUint(b, 28, 2, false);
    compression = ReadUint(b, 30, 4, false);
  }
  // Windows headers (OS/2's 16- and 64-byte ones number compressions differently): BI_RGB,
  // BI_BITFIELDS and BI_ALPHABITFIELDS store rows padded to 4 bytes; RLE varies.
  const bool windows = *header_size == 12 || *header_size == 40 || *header_size >= 52;
  // Sides past kMaxImageSide are refused by CheckImageSize; computing their size here would
  // overflow int64 (a 2^31 x 2^31 header, found by fuzzing: tests/fuzz/regressions/opencv_decoder).
  const bool plausible =
      dims.width >= 0 && dims.width <= kMaxImageSide && dims.height <= kMaxImageSide;
  if (plausible && windows && *header_size != 64 && bits && *bits <= 32 && compression &&
      (*compression == 0 || *compression == 3 || *compression == 6)) {
    dims.data_offset = *data_offset;
    dims.data_bytes = (dims.width * *bits + 31) / 32 * 4 * dims.height;
  }
  return dims;
}

// "P6 <width> <height> <maxval>" with any whitespace and '#' comments between the fields.
std::optional<Dimensions> PnmDimensions(std::span<const uint8_t> b) {
  size_t pos = 2;
  auto next_number = [&]() -> std::optional<int64_t> {
    while (pos < b.size()) {
      if (b[pos] == '#') {
        while (pos < b.size() && b[pos] != '\n' && b[pos] != '\r') ++pos;
      } else if (std::isspace(b[pos])) {
        ++pos;
      } else {
        break;
      }
    }
    int64_t value = 0;
    int digits = 0;
    for (; pos < b.size() && std::isdigit(b[pos]); ++pos, ++digits) {
      if (digits == 9) return std::nullopt;  // far beyond any sane size
      value = value * 10 + (b[pos] - '0');
    }
    if (digits == 0) return std::nullopt;
    return value;
  };
  const auto width = next_number();
  const auto height = next_number();
  if (!width || !height) return std::nullopt;
  Dimensions dims{*height, *width};
  const char kind = static_cast<char>(b[1]);
  const bool bitmap = kind == '1' || kind == '4';
  const auto maxval = bitmap ? std::optional<int64_t>(1) : next_number();
  if (!maxval) return std::nullopt;
  if (kind >= '4') {  // binary: one whitespace byte, then fixed-size rows
    const int64_t sample_bytes = *maxval > 255 ? 2 : 1;
    const int64_t row_bytes = kind == '4'   ? (dims.width + 7) / 8
                              : kind == '5' ? dims.width * sample_bytes
                                            : dims.width * 3 * sample_bytes;
    dims.data_offset = static_cast<int64_t>(pos) + 1;
    dims.data_bytes = row_bytes * dims.height;
  }
  return dims;
}

// ImageWidth (tag 256) and ImageLength (257) of the first IFD, as SHORT or LONG values.
std::optional<Dimensions> TiffDimensions(std::span<const uint8_t> b) {
  const bool big = b[0] == 'M';
  const auto ifd = ReadUint(b, 4, 4, big);
  if (!ifd) return std::nullopt;
  const auto count = ReadUint(b, *ifd, 2, big);
  if (!count) return std::nullopt;
  std::optional<uint32_t> width, height;
  for (uint32_t i = 0; i < *count; ++i) {
    const size_t entry = *ifd + 2 + size_t{12} * i;
    const auto tag = ReadUint(b, entry, 2, big);
    const auto type = ReadUint(b, entry + 2, 2, big);
    if (!tag || !type) return std::nullopt;
    if (*tag != 256 && *tag != 257) continue;
    std::optional<uint32_t> value;
    if (*type == 3) value = ReadUint(b, entry + 8, 2, big);
    if (*type == 4) value = ReadUint(b, entry + 8, 4, big);
    (*tag == 256 ? width : height) = value;
  }
  if (!width || !height) return std::nullopt;
  return Dimensions{*height, *width, -1, -1};
}

Kind SniffOrThrow(std::span<const uint8_t> encoded, std::string_view name) {
  const std::optional<Kind> kind = Sniff(encoded);
  if (!kind) ThrowCorrupt("BMP/PNM/TIFF", name, "not a BMP, PNM or TIFF file");
  return *kind;
}

// The module's decode function, loaded once, at the first call (opencv_codecs_module.h).
struct OpenCvCodecs {
  OpenCvDecodeFunction decode = nullptr;
  std::string problem;  // why it could not be loaded
};

OpenCvCodecs LoadOpenCvCodecs() {
  // Set by converters/image/CMakeLists.txt, as the open probe's paths are.
  static constexpr process::Helper kModule{
      kOpenCvCodecsVariable, H5FEED_OPENCV_CODECS_RELATIVE_PATH,
      H5FEED_OPENCV_CODECS_INSTALLED_PATH, H5FEED_OPENCV_CODECS_BUILT_PATH, false};
  const process::HelperLocation location = process::FindHelper(kModule);
  if (location.path.empty()) return {nullptr, "it was not found (looked: " + location.looked + ")"};
  // Never closed: decoders may run on any thread until the process ends.
  void* module = ::dlopen(location.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!module) return {nullptr, "loading " + location.path + " failed: " + ::dlerror()};
  void* symbol = ::dlsym(module, kOpenCvDecodeSymbol);
  if (!symbol) {
    return {nullptr,
            location.path + " has no " + kOpenCvDecodeSymbol + ": it is not h5feed's module"};
  }
  return {reinterpret_cast<OpenCvDecodeFunction>(symbol), {}};
}

const OpenCvCodecs& TheOpenCvCodecs() {
  static const OpenCvCodecs codecs = LoadOpenCvCodecs();  // thread-safe initialization
  return codecs;
}

}  // namespace

bool IsOpenCvFormat(std::span<const uint8_t> encoded) { return Sniff(encoded).has_value(); }

DecodePlan PlanOpenCv(std::span<const uint8_t> encoded, std::string_view name) {
  const Kind kind = SniffOrThrow(encoded, name);
  std::optional<Dimensions> dims;
  switch (kind) {
    case Kind::kBmp: dims = BmpDimensions(encoded); break;
    case Kind::kPnm: dims = PnmDimensions(encoded); break;
    case Kind::kTiff: dims = TiffDimensions(encoded); break;
  }
  if (!dims) ThrowCorrupt(KindName(kind), name, "truncated or unreadable header");
  CheckImageSize(dims->height, dims->width, 3, KindName(kind), name);
  if (dims->data_bytes >= 0 &&
      dims->data_offset + dims->data_bytes > static_cast<int64_t>(encoded.size())) {
    ThrowCorrupt(
        KindName(kind), name,
        fmt::format(
            "truncated: the header announces {} bytes of pixels from byte {}, the file has {} "
            "bytes",
            dims->data_bytes, dims->data_offset, encoded.size()));
  }
  DecodePlan plan;
  plan.format = Format::kOther;
  plan.full_height = plan.height = static_cast<int>(dims->height);
  plan.full_width = plan.width = static_cast<int>(dims->width);
  // cv::imdecode's own BGR image, and for 16-bit or 4-channel files its buffer of the file's
  // samples before conversion (up to 8 bytes a pixel).
  plan.scratch_bytes = (dims->height * dims->width) * 11 + (1 << 20);
  return plan;
}

void DecodeOpenCv(std::span<const uint8_t> encoded, const DecodePlan& plan, std::string_view name,
                  std::span<uint8_t> rgb) {
  const Kind kind = SniffOrThrow(encoded, name);
  const OpenCvCodecs& codecs = TheOpenCvCodecs();
  if (!codecs.decode) {
    // Not kCorrupt: the file is fine, the installation is not, and skipping every such file
    // would lose data quietly.
    throw MakeError(
        ErrorCode::kUnsupported,
        "cannot decode {} ({}): BMP, PNM and TIFF are decoded by h5feed's OpenCV module "
        "(h5feed-opencv-codecs.so), and {}. Reinstall h5feed, or set ${} to the module",
        name, KindName(kind), codecs.problem, kOpenCvCodecsVariable);
  }
  std::array<char, 512> message{};
  const int status = codecs.decode(encoded.data(), encoded.size(), plan.height, plan.width,
                                   rgb.data(), message.data(), message.size());
  if (status == kOpenCvInternal) {
    throw MakeError(ErrorCode::kInternal, "decoding '{}': {}", name, message.data());
  }
  if (status != kOpenCvDecoded) ThrowCorrupt(KindName(kind), name, message.data());
}

}  // namespace h5feed::converters::image
