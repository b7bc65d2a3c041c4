#pragma once
// Memory and file ranges aligned as O_DIRECT asks: a direct read moves bytes between the device
// and the caller's memory with no page cache between, so the file offset, the length and the
// buffer's address must all be multiples of the device's logical block size. 4 KiB is that
// size or a multiple of it on every device Linux serves (512-byte and 4 KiB sectors), and the
// page size of x86-64 and most arm64 kernels.

#include <cstddef>
#include <cstdint>

namespace h5feed::io {

inline constexpr uint64_t kDirectAlignment = 4096;

// The smallest aligned range that encloses [offset, offset + length): what a direct read of
// those bytes reads. `skip` is where the asked-for bytes begin inside it.
struct AlignedRange {
  uint64_t offset = 0;
  uint64_t length = 0;
  uint64_t skip = 0;
};
AlignedRange EnclosingAlignedRange(uint64_t offset, uint64_t length);

// A buffer of `capacity` bytes at an address aligned to kDirectAlignment, its pages committed
// at allocation (so a read into it neither page-faults nor waits for the kernel to zero pages).
// Throws std::bad_alloc. Move-only.
class AlignedBuffer {
 public:
  explicit AlignedBuffer(size_t capacity);
  ~AlignedBuffer();
  AlignedBuffer(AlignedBuffer&& other) noexcept;
  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;

  uint8_t* data() const { return data_; }
  size_t capacity() const { return capacity_; }

 private:
  uint8_t* data_ = nullptr;
  size_t capacity_ = 0;
};

}  // namespace h5feed::io
