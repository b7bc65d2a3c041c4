#pragma once
// A read-only mapping of a byte range of a file, with every page already present: the bytes
// can be read in place, straight from the page cache, without a copy into a buffer of ours.
// Why: an uncompressed chunk read with pread crosses memory twice before it reaches a batch
// (page cache -> cache buffer -> batch slot); mapped, once (docs/reader.md has the figures).

#include <cstddef>
#include <cstdint>
#include <span>

namespace h5feed::io {

// Unmaps on destruction. Move-only.
class MappedRange {
 public:
  // Takes over the mapping [base, base + mapped_bytes) of which `bytes` is a part.
  MappedRange(void* base, size_t mapped_bytes, std::span<const uint8_t> bytes)
      : base_(base), mapped_bytes_(mapped_bytes), bytes_(bytes) {}
  ~MappedRange();
  MappedRange(const MappedRange&) = delete;
  MappedRange& operator=(const MappedRange&) = delete;

  // Exactly the range asked for (the mapping itself starts at a page boundary before it).
  std::span<const uint8_t> bytes() const { return bytes_; }

 private:
  void* base_;
  size_t mapped_bytes_;
  std::span<const uint8_t> bytes_;
};

}  // namespace h5feed::io
