#pragma once
// Limits on what a file may claim before h5feed allocates memory for it: a damaged or hostile
// file (a chunk claiming 10^12 bytes, 10^9 classes, dimensions that wrap negative) is refused
// with Error(kCorrupt) naming the value and the limit, before any allocation of that size.
// docs/reliability.md, "Limits", lists them with their reasons.

#include <cstdint>
#include <string>
#include <vector>

namespace h5feed::limits {

// One image dimension (height, width or channels): 2^31 - 1, beyond any image codec's limit.
inline constexpr int64_t kMaxImageDimension = (int64_t{1} << 31) - 1;
// One image: 2 GiB. (HDF5 1.10 refuses chunks over 4 GiB, and a chunk holds whole images.)
inline constexpr int64_t kMaxImageBytes = int64_t{1} << 31;
// Class names: 2^22 (4,194,304). ImageNet-21k has 21,841; the largest face-identity sets a
// few million. Reading the names costs about 16 bytes per class before their text.
inline constexpr int64_t kMaxClasses = int64_t{1} << 22;
// Memory h5feed keeps per image of a file: its label (8 bytes) and its place in the epoch
// order (8 bytes). A file claiming more images than memory can hold at this rate is refused.
inline constexpr int64_t kBytesPerImage = 16;

// The machine's physical memory in bytes (sysconf); 2^40 when it cannot be read.
uint64_t PhysicalMemoryBytes();

// The largest stored (compressed) chunk a chunk of `chunk_bytes` decoded bytes can need with
// the filters h5feed undoes: zstd and deflate expand incompressible data by well under 1%
// (ZSTD_compressBound, deflateBound), fletcher32 adds 4 bytes. Allowed: chunk + 1/8 + 64 KiB.
uint64_t MaxStoredChunkBytes(uint64_t chunk_bytes);

// Checks the dimensions of an image dataset as HDF5 reports them (converted to int64, so a
// dimension of 2^63 or more reads negative): every one >= 0, image dimensions (all but the
// first) <= kMaxImageDimension, one image <= kMaxImageBytes, and the image count within
// physical memory at kBytesPerImage. Throws Error(kCorrupt) naming `where` otherwise.
void CheckImageDimensions(const std::vector<int64_t>& dims, const std::string& where);

// Throws Error(kCorrupt) naming `where` when `rows` images (or their labels) would not fit in
// physical memory at kBytesPerImage each.
void CheckRowCount(int64_t rows, const std::string& where);

// Throws Error(kCorrupt) naming `where` when `count` class names exceed kMaxClasses.
void CheckClassCount(int64_t count, const std::string& where);

}  // namespace h5feed::limits
