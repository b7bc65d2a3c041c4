#pragma once
// Inputs HDF5 1.10.8 (Debian bookworm's) never finishes with, which the open_file target
// defuses before handing the file to HDF5: h5feed cannot interrupt a call into HDF5, and a fuzz
// run stuck in one finds nothing else (outside fuzzing, h5feed's opens give up on such a file
// through the open probe, lib/probe/open_probe.h). Each is listed in docs/fuzzing.md, and the
// input that found it is kept in tests/fuzz/regressions/open_file/ (its replay would hang,
// failing on ctest's timeout, if the defusing stopped working).
//
// The one known: a global heap collection ("GCOL", where variable-length strings live) whose
// object list holds, before the collection's end, an object of index 0 (free space) and size
// 0. HDF5's collection loader advances by each object's size, so it then spins forever; any
// read of a string attribute or dataset stored in that collection hangs.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>

namespace h5feed::fuzzing {

namespace detail {

inline uint64_t LittleEndian(std::span<const uint8_t> bytes, size_t at, size_t width) {
  uint64_t value = 0;
  for (size_t i = 0; i < width; ++i) value |= uint64_t{bytes[at + i]} << (8 * i);
  return value;
}

}  // namespace detail

// Rewrites, in `file`, every global heap collection HDF5 1.10.8 would loop on into one it
// reads: the size-0 free-space object gets the collection's remaining bytes, as HDF5 itself
// writes it. Returns how many were rewritten. (8-byte lengths, the superblock's default;
// collections are 16 bytes of header, then objects of a 16-byte header and their data rounded
// up to 8 bytes.) Rewriting instead of skipping the input keeps fuzzing everything else in it.
inline int DefuseLoopingGlobalHeaps(std::span<uint8_t> file) {
  constexpr size_t kHeader = 16;
  int defused = 0;
  for (size_t at = 0; at + kHeader <= file.size(); ++at) {
    if (std::memcmp(file.data() + at, "GCOL", 4) != 0) continue;
    const uint64_t size = detail::LittleEndian(file, at + 8, 8);
    const size_t end = static_cast<size_t>(std::min<uint64_t>(at + size, file.size()));
    size_t object = at + kHeader;
    while (object + kHeader <= end) {
      const uint64_t index = detail::LittleEndian(file, object, 2);
      const uint64_t bytes = detail::LittleEndian(file, object + 8, 8);
      const uint64_t step = index > 0 ? kHeader + (bytes + 7) / 8 * 8 : bytes;
      if (step == 0) {
        const uint64_t rest = end - object;
        for (size_t i = 0; i < 8; ++i) file[object + 8 + i] = static_cast<uint8_t>(rest >> (8 * i));
        ++defused;
        break;
      }
      if (step > end - object) break;
      object += static_cast<size_t>(step);
    }
  }
  return defused;
}

}  // namespace h5feed::fuzzing
