#pragma once
// zstd chunk codec: one chunk <-> one zstd frame, the same frames HDF5's zstd filter (32015,
// hdf5plugin's H5Z-ZSTD) writes and reads.
//
// Frames record their content size and carry no zstd checksum (the chunk table's XXH3-64
// covers the uncompressed bytes, docs/format.md). Thread-safe: every call uses the calling
// thread's own reusable context (zstd_context.h). Error messages name the codec and the sizes;
// callers add the chunk, dataset and file, which only they know.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace h5feed::codec {

// Levels zstd accepts here. 1 is fastest; 19 is the highest level that needs no extra memory
// to decompress; 20-22 ("ultra") need up to 128 MiB windows when compressing.
inline constexpr int kZstdMinLevel = 1;
inline constexpr int kZstdMaxLevel = 22;

// Compresses `input` at `level` into one frame, written into `frame` (resized to it) so that
// its memory is reused: a converter compressing chunk after chunk into one buffer allocates it
// once. Throws Error(kInvalidArgument) for a level outside [kZstdMinLevel, kZstdMaxLevel].
void ZstdCompressInto(std::span<const uint8_t> input, int level, std::vector<uint8_t>& frame);

// The content size written in the (first) frame's header; nullopt when the frame's writer did
// not record it (streaming writers). Throws Error(kCorrupt) when `frame` is not a zstd frame.
std::optional<uint64_t> ZstdContentSize(std::span<const uint8_t> frame);

// Decompresses `frame` (one or more concatenated frames) into `output`, which must be exactly
// the decompressed size. Throws Error(kCorrupt) when the data is damaged or decompresses to
// any other size.
void ZstdDecompress(std::span<const uint8_t> frame, std::span<uint8_t> output);

}  // namespace h5feed::codec
