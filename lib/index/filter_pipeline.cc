#include "index/filter_pipeline.h"

#include <array>
#include <cstring>
#include <string>

#include "codec/deflate_codec.h"
#include "codec/zstd_codec.h"
#include "h5feed/error.h"
#include "index/hdf5_filters.h"
#include "make_error.h"

namespace h5feed::index {
namespace {

// HDF5 pipelines hold at most 32 filters (H5Z_MAX_NFILTERS); the mask has one bit for each.
constexpr size_t kMaxFilters = 32;

bool Applied(size_t i, uint32_t filter_mask) {
  return i >= kMaxFilters || ((filter_mask >> i) & 1u) == 0;
}

bool Compresses(FilterKind kind) {
  return kind == FilterKind::kZstd || kind == FilterKind::kDeflate;
}

uint64_t ElementBytes(const FilterStep& step) {
  return step.client_data.empty() ? 1 : step.client_data[0];
}

std::string Name(const FilterStep& step) {
  switch (step.kind) {
    case FilterKind::kZstd: return "zstd";
    case FilterKind::kDeflate: return "deflate";
    case FilterKind::kShuffle: return "shuffle";
    case FilterKind::kFletcher32: return "fletcher32";
    case FilterKind::kOther: break;
  }
  return "filter " + std::to_string(step.id);
}

}  // namespace

bool CanDecode(std::span<const FilterStep> filters) {
  if (filters.size() > kMaxFilters) return false;
  int compressors = 0;
  for (const FilterStep& step : filters) {
    if (step.kind == FilterKind::kOther) return false;
    compressors += Compresses(step.kind) ? 1 : 0;
  }
  return compressors <= 1;
}

bool NothingApplied(std::span<const FilterStep> filters, uint32_t filter_mask) {
  for (size_t i = 0; i < filters.size(); ++i) {
    if (Applied(i, filter_mask)) return false;
  }
  return true;
}

void DecodeChunk(std::span<const FilterStep> filters, uint32_t filter_mask,
                 std::span<const uint8_t> stored, std::span<uint8_t> out, DecodeScratch& scratch) {
  if (filters.size() > kMaxFilters) {
    throw MakeError(ErrorCode::kUnsupported,
                    "a filter pipeline of {} filters; HDF5 allows at most 32", filters.size());
  }
  // Fixed arrays, not vectors: nothing is allocated per chunk.
  std::array<size_t, kMaxFilters> applied_storage{};
  size_t applied_count = 0;
  for (size_t i = 0; i < filters.size(); ++i) {
    if (Applied(i, filter_mask)) applied_storage[applied_count++] = i;
  }
  const std::span<const size_t> applied(applied_storage.data(), applied_count);
  // The size each applied stage was given on write: the chunk, plus 4 bytes per fletcher32,
  // unknown (-1) after a compressor. A stage's decoded size is the size it was given.
  constexpr int64_t kUnknown = -1;
  std::array<int64_t, kMaxFilters> input_bytes{};
  int64_t bytes = static_cast<int64_t>(out.size());
  for (size_t j = 0; j < applied.size(); ++j) {
    input_bytes[j] = bytes;
    const FilterStep& step = filters[applied[j]];
    if (step.kind == FilterKind::kFletcher32 && bytes != kUnknown) bytes += 4;
    if (Compresses(step.kind)) bytes = kUnknown;
  }

  // Stages that write a new buffer (decompressors, a real unshuffle); fletcher32 only drops
  // its 4 bytes. The last such stage writes straight into `out` when nothing follows it.
  auto copies = [&](size_t j, size_t size) {
    const FilterStep& step = filters[applied[j]];
    return Compresses(step.kind) ||
           (step.kind == FilterKind::kShuffle && !ShuffleIsNoOp(size, ElementBytes(step)));
  };

  std::span<const uint8_t> current = stored;
  for (size_t j = applied.size(); j-- > 0;) {
    const FilterStep& step = filters[applied[j]];
    if (step.kind == FilterKind::kFletcher32) {
      current = StripFletcher32(current);
      continue;
    }
    if (!copies(j, current.size())) {
      if (step.kind == FilterKind::kShuffle) continue;  // 1-byte elements: nothing to undo
      throw MakeError(ErrorCode::kUnsupported, "{} (HDF5 filter {}) cannot be undone outside HDF5",
                      Name(step), step.id);
    }
    const int64_t decoded =
        step.kind == FilterKind::kShuffle ? static_cast<int64_t>(current.size()) : input_bytes[j];
    if (decoded == kUnknown) {
      throw MakeError(
          ErrorCode::kUnsupported,
          "{} follows another compressor in the filter pipeline; the size it decompresses to is "
          "unknown outside HDF5",
          Name(step));
    }
    bool last_copy = true;
    for (size_t k = 0; k < j; ++k) {
      if (filters[applied[k]].kind == FilterKind::kFletcher32 ||
          copies(k, static_cast<size_t>(input_bytes[k]))) {
        last_copy = false;
      }
    }
    std::span<uint8_t> target;
    if (last_copy && static_cast<size_t>(decoded) == out.size()) {
      target = out;
    } else {
      ScratchBuffer& next = scratch.first.Holds(current.data()) ? scratch.second : scratch.first;
      target = next.Get(static_cast<size_t>(decoded));
    }
    switch (step.kind) {
      case FilterKind::kZstd: codec::ZstdDecompress(current, target); break;
      case FilterKind::kDeflate: codec::DeflateDecompress(current, target); break;
      case FilterKind::kShuffle: Unshuffle(current, target, ElementBytes(step)); break;
      default: break;  // not reached: copies() holds only for the three above
    }
    current = target;
  }
  if (current.size() != out.size()) {
    throw MakeError(ErrorCode::kCorrupt, "the stored chunk decodes to {} bytes, expected {}",
                    current.size(), out.size());
  }
  // An empty chunk may have null spans, which memcpy must not be given even for 0 bytes.
  if (current.data() != out.data() && !out.empty()) {
    std::memcpy(out.data(), current.data(), out.size());
  }
}

}  // namespace h5feed::index
