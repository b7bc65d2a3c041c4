// MaskCompression, CompressesRows, CompressMaskRow, AppendDecompressedMaskRow (mask_rows.h).

#include "format/mask_rows.h"

#include "codec/zstd_codec.h"
#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::format {
namespace {

constexpr int kDefaultZstdLevel = 3;

}  // namespace

Compression MaskCompression(const Compression& images) {
  if (images.kind != Compression::Kind::kNone) return images;
  return Compression{Compression::Kind::kZstd, kDefaultZstdLevel};
}

bool CompressesRows(const FieldSpec& spec) {
  return spec.kind == FieldKind::kMask && spec.shape.empty();
}

void CompressMaskRow(std::span<const uint8_t> values, const Compression& images,
                     std::vector<uint8_t>& frame) {
  const int level = images.kind == Compression::Kind::kZstd ? images.level : kDefaultZstdLevel;
  codec::ZstdCompressInto(values, level, frame);
}

void AppendDecompressedMaskRow(std::span<const uint8_t> frame, uint64_t value_bytes,
                               FieldColumn& column) {
  const std::optional<uint64_t> declared = codec::ZstdContentSize(frame);
  if (declared != value_bytes) {
    throw MakeError(ErrorCode::kCorrupt,
                    "its zstd frame declares {} values' bytes where its image's size makes {}",
                    declared ? std::to_string(*declared) : std::string("no count of"), value_bytes);
  }
  thread_local std::vector<uint8_t> values;
  values.resize(value_bytes);
  codec::ZstdDecompress(frame, values);
  column.Append(values);
}

}  // namespace h5feed::format
