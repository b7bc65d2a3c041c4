#include "codec/zstd_codec.h"

#include <zstd.h>

#include <cstring>
#include <string>

#include "codec/zstd_context.h"
#include "h5feed/error.h"

namespace h5feed::codec {
namespace {

std::string ZstdErrorText(size_t code) { return ZSTD_getErrorName(code); }

}  // namespace

void ZstdCompressInto(std::span<const uint8_t> input, int level, std::vector<uint8_t>& frame) {
  if (level < kZstdMinLevel || level > kZstdMaxLevel) {
    throw Error(ErrorCode::kInvalidArgument, "zstd level " + std::to_string(level) +
                                                 " is out of range: use " +
                                                 std::to_string(kZstdMinLevel) + " (fastest) to " +
                                                 std::to_string(kZstdMaxLevel) + " (smallest)");
  }
  frame.resize(ZSTD_compressBound(input.size()));
  // ZSTD_compressCCtx ignores sticky parameters and always records the content size: the
  // same call H5Z-ZSTD makes, so its frames and ours are interchangeable.
  size_t written = ZSTD_compressCCtx(&ThreadCompressionContext(), frame.data(), frame.size(),
                                     input.data(), input.size(), level);
  if (ZSTD_isError(written)) {
    throw Error(ErrorCode::kInternal, "zstd failed to compress " + std::to_string(input.size()) +
                                          " bytes at level " + std::to_string(level) + ": " +
                                          ZstdErrorText(written));
  }
  frame.resize(written);
}

std::optional<uint64_t> ZstdContentSize(std::span<const uint8_t> frame) {
  unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (size == ZSTD_CONTENTSIZE_UNKNOWN) return std::nullopt;
  if (size == ZSTD_CONTENTSIZE_ERROR) {
    throw Error(ErrorCode::kCorrupt, "the " + std::to_string(frame.size()) +
                                         " bytes given as a zstd frame do not start with a "
                                         "valid zstd frame header");
  }
  return size;
}

void ZstdDecompress(std::span<const uint8_t> frame, std::span<uint8_t> output) {
  // A frame too large for `output` is refused before any work. A frame that is smaller, has
  // no recorded size or is followed by more frames is settled by the size decompressed.
  std::optional<uint64_t> declared = ZstdContentSize(frame);
  if (declared && *declared > output.size()) {
    throw Error(ErrorCode::kCorrupt, "zstd frame of " + std::to_string(frame.size()) +
                                         " bytes declares " + std::to_string(*declared) +
                                         " decompressed bytes, expected " +
                                         std::to_string(output.size()));
  }
  size_t written = ZSTD_decompressDCtx(&ThreadDecompressionContext(), output.data(), output.size(),
                                       frame.data(), frame.size());
  if (ZSTD_isError(written)) {
    throw Error(ErrorCode::kCorrupt, "zstd frame of " + std::to_string(frame.size()) +
                                         " bytes is damaged (" + ZstdErrorText(written) +
                                         "); expected " + std::to_string(output.size()) +
                                         " decompressed bytes");
  }
  if (written != output.size()) {
    throw Error(ErrorCode::kCorrupt, "zstd frame of " + std::to_string(frame.size()) +
                                         " bytes decompressed to " + std::to_string(written) +
                                         " bytes, expected " + std::to_string(output.size()));
  }
}

}  // namespace h5feed::codec
