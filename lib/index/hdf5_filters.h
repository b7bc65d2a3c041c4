#pragma once
// HDF5's two built-in filters that do not compress, re-implemented byte for byte so that
// chunks can be decoded outside HDF5 (and its global lock): fletcher32 (H5Zfletcher32.c with
// H5_checksum_fletcher32 of H5checksum.c) and shuffle (H5Zshuffle.c). Thread-safe, no state.

#include <cstdint>
#include <span>

namespace h5feed::index {

// H5_checksum_fletcher32: Fletcher's checksum over 16-bit big-endian words (an odd last byte
// is the high byte of a word), both sums starting at 0.
uint32_t Fletcher32(std::span<const uint8_t> bytes);

// Checks the 4-byte checksum HDF5's fletcher32 filter appends to a chunk and returns the
// chunk without it. HDF5 writes the checksum little-endian and, on read, also accepts it with
// the bytes of each 16-bit half swapped (what releases before 1.6.3 wrote); so does this.
// Throws Error(kCorrupt) "fletcher32 checksum mismatch (stored 0x..., computed 0x...)" or for
// a chunk shorter than 4 bytes; the caller adds which chunk.
std::span<const uint8_t> StripFletcher32(std::span<const uint8_t> stored);

// Whether unshuffling `bytes` bytes of `element_bytes`-byte elements changes anything: HDF5
// leaves 1-byte elements (all of h5feed's uint8 pixels) and buffers of one element as they are.
bool ShuffleIsNoOp(uint64_t bytes, uint64_t element_bytes);

// Inverse of HDF5's shuffle: `in` holds byte 0 of every element, then byte 1 of every element,
// ...; the bytes past the last whole element come last, unshuffled. Writes in.size() bytes to
// `out` (same size, not overlapping).
void Unshuffle(std::span<const uint8_t> in, std::span<uint8_t> out, uint64_t element_bytes);

}  // namespace h5feed::index
