#include "codec/deflate_codec.h"

#include <zlib.h>

#include <string>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::codec {
namespace {

std::string ZlibStatusText(int status) {
  switch (status) {
    case Z_MEM_ERROR: return "out of memory";
    case Z_BUF_ERROR: return "the data does not fit the expected size";
    case Z_DATA_ERROR: return "the data is damaged or incomplete";
    case Z_STREAM_ERROR: return "invalid parameters";
    default: return "zlib status " + std::to_string(status);
  }
}

}  // namespace

void DeflateCompressInto(std::span<const uint8_t> input, int level, std::vector<uint8_t>& stream) {
  if (level < kDeflateMinLevel || level > kDeflateMaxLevel) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "gzip (deflate) level {} is out of range: use {} (fastest) to {} (smallest)",
                    level, kDeflateMinLevel, kDeflateMaxLevel);
  }
  stream.resize(compressBound(static_cast<uLong>(input.size())));
  uLongf written = static_cast<uLongf>(stream.size());
  int status =
      compress2(stream.data(), &written, input.data(), static_cast<uLong>(input.size()), level);
  if (status != Z_OK) {
    throw MakeError(ErrorCode::kInternal, "zlib failed to compress {} bytes at level {}: {}",
                    input.size(), level, ZlibStatusText(status));
  }
  stream.resize(written);
}

void DeflateDecompress(std::span<const uint8_t> stream, std::span<uint8_t> output) {
  // uncompress() wants a non-null destination even for an empty chunk, and given a size of 0
  // it inflates into a byte of its own and reports success whatever came out (zlib 1.2.13,
  // found by fuzzing: tests/fuzz/regressions/deflate_codec). A spare byte offered as room makes
  // a stream that is not empty come out as 1 byte written, which the size check refuses.
  uint8_t spare = 0;
  uLongf written = output.empty() ? 1 : static_cast<uLongf>(output.size());
  int status = uncompress(output.empty() ? &spare : output.data(), &written, stream.data(),
                          static_cast<uLong>(stream.size()));
  if (status != Z_OK) {
    throw MakeError(status == Z_MEM_ERROR ? ErrorCode::kInternal : ErrorCode::kCorrupt,
                    "zlib stream of {} bytes could not be inflated to {} bytes: {}", stream.size(),
                    output.size(), ZlibStatusText(status));
  }
  if (written != output.size()) {
    throw MakeError(ErrorCode::kCorrupt,
                    "zlib stream of {} bytes inflated to {} bytes, expected {}", stream.size(),
                    written, output.size());
  }
}

}  // namespace h5feed::codec
