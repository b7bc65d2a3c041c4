#pragma once
// The chunk checksum of format version 1: XXH3-64 (seed 0) of the uncompressed chunk, zero
// padding included (docs/format.md, /chunk_index).
//
// XXH3 hashes at memory bandwidth (~30 GB/s per core on AVX2), so verifying every chunk on read
// costs a small fraction of decompressing it. Thread-safe.

#include <cstdint>
#include <span>

namespace h5feed::codec {

// The name stored in the "checksum" attribute of /chunk_index.
inline constexpr char kChecksumName[] = "xxh3-64";

uint64_t ChunkChecksum(std::span<const uint8_t> bytes);

}  // namespace h5feed::codec
