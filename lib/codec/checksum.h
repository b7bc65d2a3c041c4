#pragma once
// The checksums of format version 1, both XXH3-64 (seed 0): of each uncompressed chunk, zero
// padding included (/chunk_index), and of each image's bytes (/row_checksums; docs/format.md).
//
// XXH3 hashes at memory bandwidth (docs/format.md, "Checksums"), so verifying every chunk on
// read costs a small fraction of decompressing it. Thread-safe.

#include <cstdint>
#include <span>

namespace h5feed::codec {

// The name stored in the "checksum" attribute of /chunk_index.
inline constexpr char kChecksumName[] = "xxh3-64";

uint64_t ChunkChecksum(std::span<const uint8_t> bytes);

// The same hash of one image (one row of /images).
inline uint64_t RowChecksum(std::span<const uint8_t> image) { return ChunkChecksum(image); }

}  // namespace h5feed::codec
