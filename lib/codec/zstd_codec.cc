#include "codec/zstd_codec.h"

#include <zstd.h>

#include <cstring>
#include <string>

#include "codec/zstd_context.h"
#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::codec {
namespace {

std::string ZstdErrorText(size_t code) { return ZSTD_getErrorName(code); }

}  // namespace

void ZstdCompressInto(std::span<const uint8_t> input, int level, std::vector<uint8_t>& frame) {
  if (level < kZstdMinLevel || level > kZstdMaxLevel) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "zstd level {} is out of range: use {} (fastest) to {} (smallest)", level,
                    kZstdMinLevel, kZstdMaxLevel);
  }
  frame.resize(ZSTD_compressBound(input.size()));
  // ZSTD_compressCCtx ignores sticky parameters and always records the content size: the
  // same call H5Z-ZSTD makes, so its frames and ours are interchangeable.
  size_t written = ZSTD_compressCCtx(&ThreadCompressionContext(), frame.data(), frame.size(),
                                     input.data(), input.size(), level);
  if (ZSTD_isError(written)) {
    throw MakeError(ErrorCode::kInternal, "zstd failed to compress {} bytes at level {}: {}",
                    input.size(), level, ZstdErrorText(written));
  }
  frame.resize(written);
}

std::optional<uint64_t> ZstdContentSize(std::span<const uint8_t> frame) {
  unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (size == ZSTD_CONTENTSIZE_UNKNOWN) return std::nullopt;
  if (size == ZSTD_CONTENTSIZE_ERROR) {
    throw MakeError(
        ErrorCode::kCorrupt,
        "the {} bytes given as a zstd frame do not start with a valid zstd frame header",
        frame.size());
  }
  return size;
}

void ZstdDecompress(std::span<const uint8_t> frame, std::span<uint8_t> output) {
  // A frame too large for `output` is refused before any work. A frame that is smaller, has
  // no recorded size or is followed by more frames is settled by the size decompressed.
  std::optional<uint64_t> declared = ZstdContentSize(frame);
  if (declared && *declared > output.size()) {
    throw MakeError(ErrorCode::kCorrupt,
                    "zstd frame of {} bytes declares {} decompressed bytes, expected {}",
                    frame.size(), *declared, output.size());
  }
  size_t written = ZSTD_decompressDCtx(&ThreadDecompressionContext(), output.data(), output.size(),
                                       frame.data(), frame.size());
  if (ZSTD_isError(written)) {
    throw MakeError(ErrorCode::kCorrupt,
                    "zstd frame of {} bytes is damaged ({}); expected {} decompressed bytes",
                    frame.size(), ZstdErrorText(written), output.size());
  }
  if (written != output.size()) {
    throw MakeError(ErrorCode::kCorrupt,
                    "zstd frame of {} bytes decompressed to {} bytes, expected {}", frame.size(),
                    written, output.size());
  }
}

}  // namespace h5feed::codec
