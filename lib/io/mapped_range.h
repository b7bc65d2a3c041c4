#pragma once
// A byte range of a file in memory, with every page already present: the bytes can be read in
// place, without a copy into a buffer of ours. Either a read-only mapping of the file (the page
// cache's own pages), or the buffer a direct read put them in (disk_readahead.h), held until
// the range is let go.
// Why: an uncompressed chunk read with pread crosses memory twice before it reaches a batch
// (page cache -> cache buffer -> batch slot); mapped, once (docs/reader.md has the figures).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace h5feed::io {

// Unmaps (or lets the buffer go) on destruction. Move-only.
class MappedRange {
 public:
  // Takes over the mapping [base, base + mapped_bytes) of which `bytes` is a part.
  MappedRange(void* base, size_t mapped_bytes, std::span<const uint8_t> bytes)
      : base_(base), mapped_bytes_(mapped_bytes), bytes_(bytes) {}
  // `bytes`, valid while `owner` lives (a read-ahead buffer).
  MappedRange(std::shared_ptr<const void> owner, std::span<const uint8_t> bytes)
      : owner_(std::move(owner)), bytes_(bytes) {}
  ~MappedRange();
  MappedRange(const MappedRange&) = delete;
  MappedRange& operator=(const MappedRange&) = delete;

  // Exactly the range asked for (a mapping itself starts at a page boundary before it).
  std::span<const uint8_t> bytes() const { return bytes_; }

 private:
  void* base_ = nullptr;
  size_t mapped_bytes_ = 0;
  std::shared_ptr<const void> owner_;
  std::span<const uint8_t> bytes_;
};

}  // namespace h5feed::io
