#pragma once
// The /row_checksums dataset: uint64 (N), row i the XXH3-64 (seed 0) of image i's H*W*C bytes,
// with the attribute checksum = "xxh3-64" (docs/format.md). Optional: files written before it
// existed have only the per-chunk checksums of /chunk_index, and readers then check those.
//
// Why a checksum per image beside the one per chunk: the loader copies an image out of its
// chunk at the moment a batch needs it, in random order. A chunk checksum must read the whole
// chunk once more beforehand, from memory; an image's checksum is computed while the image is
// being copied, from the CPU's cache (docs/reader.md, "Checking what is read"). Each function
// takes hdf5::Lock() itself.

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace h5feed::format {

// Creates /row_checksums in `location` (the file's root group). Throws Error (kIo, or kNoSpace
// when the disk is full) naming the file.
void WriteRowChecksums(hid_t location, std::span<const uint64_t> checksums);

// Reads /row_checksums of `location`: nullopt when the file has none. Throws Error
// kUnsupported when its checksum attribute names another checksum, kCorrupt when it is not a
// 1-D unsigned 64-bit dataset of exactly `rows` entries (checked before anything is read).
std::optional<std::vector<uint64_t>> ReadRowChecksums(hid_t location, int64_t rows);

}  // namespace h5feed::format
