#pragma once
// Deflate chunk codec, byte-compatible with HDF5's built-in deflate (gzip) filter.
//
// HDF5's filter (H5Zdeflate.c) compresses a chunk with zlib's compress2() into one zlib
// stream (RFC 1950: 2-byte header, deflate data, Adler-32) and inflates it back. This codec
// makes the same calls, so a chunk compressed here and stored with H5Dwrite_chunk in a
// dataset whose pipeline is H5Pset_deflate reads with h5py, h5dump or any HDF5 program with
// nothing extra. Thread-safe: zlib's one-shot calls keep no shared state.

#include <cstdint>
#include <span>
#include <vector>

namespace h5feed::codec {

inline constexpr int kDeflateMinLevel = 1;
inline constexpr int kDeflateMaxLevel = 9;

// Compresses `input` at `level` into one zlib stream, written into `stream` (resized to it) so
// that its memory is reused. Throws Error(kInvalidArgument) for a level outside
// [kDeflateMinLevel, kDeflateMaxLevel].
void DeflateCompressInto(std::span<const uint8_t> input, int level, std::vector<uint8_t>& stream);

// Inflates one zlib stream into `output`, which must be exactly the uncompressed size.
// Throws Error(kCorrupt) when the stream is damaged or inflates to any other size.
void DeflateDecompress(std::span<const uint8_t> stream, std::span<uint8_t> output);

}  // namespace h5feed::codec
