#include "image/image_decoder.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "byte_size.h"
#include "h5feed/error.h"
#include "image/decode_checks.h"
#include "image/jpeg_decoder.h"
#include "image/opencv_decoder.h"
#include "image/png_decoder.h"
#include "image/webp_decoder.h"
#include "make_error.h"

namespace h5feed::converters::image {
namespace {

// The format is told by the first bytes, never by the file name: ImageFolder trees often hold
// PNGs named .jpg, and a renamed file must still decode (PIL opens them the same way).
std::optional<Format> Sniff(std::span<const uint8_t> b) {
  if (b.size() >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) return Format::kJpeg;
  static constexpr uint8_t kPngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (b.size() >= 8 && std::equal(kPngSignature, kPngSignature + 8, b.begin())) {
    return Format::kPng;
  }
  if (b.size() >= 12 && std::string_view(reinterpret_cast<const char*>(b.data()), 4) == "RIFF" &&
      std::string_view(reinterpret_cast<const char*>(b.data()) + 8, 4) == "WEBP") {
    return Format::kWebp;
  }
  if (IsOpenCvFormat(b)) return Format::kOther;
  return std::nullopt;
}

// The first bytes in hex, so a message about an unknown format shows what the file is
// (an HTML error page saved as .jpg starts with "3c 21 44 4f").
std::string FirstBytes(std::span<const uint8_t> b) {
  std::string hex;
  for (size_t i = 0; i < b.size() && i < 8; ++i) {
    char byte[4];
    std::snprintf(byte, sizeof byte, i == 0 ? "%02x" : " %02x", b[i]);
    hex += byte;
  }
  return hex;
}

// "a <name>" of a well-known image format h5feed does not decode, told by its first bytes, or
// "": a user with a folder of them (phone photos saved as HEIC under .jpg, GIFs from the web)
// needs to hear what they are and to convert them, not that the file is broken.
std::string_view UnsupportedFormat(std::span<const uint8_t> b) {
  const std::string_view head(reinterpret_cast<const char*>(b.data()),
                              std::min<size_t>(b.size(), 12));
  if (head.starts_with("GIF87a") || head.starts_with("GIF89a")) return "a GIF";
  if (head.size() >= 12 && head.substr(4, 4) == "ftyp") {
    const std::string_view brand = head.substr(8, 4);
    if (brand == "avif" || brand == "avis") return "an AVIF";
    if (brand == "heic" || brand == "heix" || brand == "mif1" || brand == "msf1" ||
        brand == "hevc") {
      return "a HEIF (HEIC)";
    }
  }
  if (head.starts_with(std::string_view("\xFF\x0A", 2)) ||
      head.starts_with(std::string_view("\0\0\0\x0CJXL \r\n", 10))) {
    return "a JPEG XL";
  }
  if (head.starts_with(std::string_view("\0\0\0\x0CjP  \r\n", 10)) ||
      head.starts_with(std::string_view("\xFF\x4F\xFF\x51", 4))) {
    return "a JPEG 2000";
  }
  return "";
}

}  // namespace

void ThrowCorrupt(std::string_view format, std::string_view name, std::string_view what) {
  throw MakeError(ErrorCode::kCorrupt,
                  "cannot decode {} image '{}': {}; re-create or remove the file", format, name,
                  what);
}

void CheckImageSize(int64_t height, int64_t width, int channels, std::string_view format,
                    std::string_view name) {
  if (height < 1 || width < 1) {
    ThrowCorrupt(format, name, fmt::format("implausible size {}x{}", width, height));
  }
  if (height > kMaxImageSide || width > kMaxImageSide ||
      height * width * channels >= kMaxImageBytes) {
    // A panorama or a scan strip can be a valid file of this size: the limit is h5feed's, and
    // "re-create the file" would not help, shrinking it would.
    throw MakeError(ErrorCode::kCorrupt,
                    "cannot decode {} image '{}': its size {}x{} is more than h5feed decodes (at "
                    "most {} pixels per side and {} decoded); shrink the image (PIL: "
                    "Image.reduce) or remove the file",
                    format, name, width, height, kMaxImageSide, ByteSize(kMaxImageBytes));
  }
}

DecodePlan PlanDecode(std::span<const uint8_t> encoded, std::string_view name, int min_height,
                      int min_width) {
  if (encoded.empty()) ThrowCorrupt("an", name, "the file is empty");
  const std::optional<Format> format = Sniff(encoded);
  static constexpr uint8_t kAppleDouble[4] = {0x00, 0x05, 0x16, 0x07};
  if (!format && encoded.size() >= 4 &&
      std::equal(kAppleDouble, kAppleDouble + 4, encoded.begin())) {
    // "._photo.jpg" beside photo.jpg, and whole __MACOSX folders (a class, to ImageFolder):
    // what macOS leaves in the zip files it makes.
    throw MakeError(ErrorCode::kCorrupt,
                    "cannot decode image '{}': it is a macOS metadata file (AppleDouble, what "
                    "macOS writes as ._NAME and into __MACOSX folders), not an image; remove it",
                    name);
  }
  if (!format && !UnsupportedFormat(encoded).empty()) {
    throw MakeError(ErrorCode::kCorrupt,
                    "cannot decode image '{}': it is {} file, a format h5feed does not decode "
                    "(JPEG, PNG, WebP, BMP, PNM and TIFF are); convert it to PNG or JPEG (PIL: "
                    "Image.open(path).convert('RGB').save(new_path)) or remove it",
                    name, UnsupportedFormat(encoded));
  }
  if (!format) {
    ThrowCorrupt(
        "an", name,
        fmt::format("not a JPEG, PNG, WebP, BMP, PNM or TIFF file (it starts with bytes {})",
                    FirstBytes(encoded)));
  }
  switch (*format) {
    case Format::kJpeg: return PlanJpeg(encoded, name, min_height, min_width);
    case Format::kPng: return PlanPng(encoded, name);
    case Format::kWebp: return PlanWebp(encoded, name);
    case Format::kOther: return PlanOpenCv(encoded, name);
  }
  throw MakeError(ErrorCode::kInternal, "unhandled image format for '{}'", name);
}

void Decode(std::span<const uint8_t> encoded, const DecodePlan& plan, std::string_view name,
            std::span<uint8_t> rgb) {
  if (plan.height < 1 || plan.width < 1 || static_cast<int64_t>(rgb.size()) != plan.bytes()) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "decoding '{}' needs {} output bytes for {}x{} RGB, got {} (pass a span of "
                    "DecodePlan::bytes())",
                    name, plan.bytes(), plan.width, plan.height, rgb.size());
  }
  if (encoded.empty()) ThrowCorrupt("an", name, "the file is empty");
  switch (plan.format) {
    case Format::kJpeg: DecodeJpeg(encoded, plan, name, rgb); return;
    case Format::kPng: DecodePng(encoded, plan, name, rgb); return;
    case Format::kWebp: DecodeWebp(encoded, plan, name, rgb); return;
    case Format::kOther: DecodeOpenCv(encoded, plan, name, rgb); return;
  }
  throw MakeError(ErrorCode::kInternal, "unhandled image format for '{}'", name);
}

void DecodeRows(std::span<const uint8_t> encoded, const DecodePlan& plan, std::string_view name,
                const RowSink& sink) {
  if (!plan.rows_in_order || plan.format != Format::kPng) {
    throw MakeError(ErrorCode::kInternal,
                    "'{}' cannot be decoded row by row (check DecodePlan::rows_in_order first)",
                    name);
  }
  if (encoded.empty()) ThrowCorrupt("an", name, "the file is empty");
  DecodePngRows(encoded, plan, name, sink);
}

}  // namespace h5feed::converters::image
