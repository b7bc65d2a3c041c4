// AlignedBuffer and EnclosingAlignedRange (aligned_buffer.h).
#include "io/aligned_buffer.h"

#include <sys/mman.h>

#include <new>
#include <utility>

namespace h5feed::io {

AlignedRange EnclosingAlignedRange(uint64_t offset, uint64_t length) {
  const uint64_t start = offset / kDirectAlignment * kDirectAlignment;
  const uint64_t end =
      (offset + length + kDirectAlignment - 1) / kDirectAlignment * kDirectAlignment;
  return {start, end - start, offset - start};
}

// mmap: page-aligned by construction, and MAP_POPULATE commits the pages now, as the cache's
// and the slots' memory is committed (docs/reader.md, "What it costs").
AlignedBuffer::AlignedBuffer(size_t capacity) : capacity_(capacity) {
  if (capacity_ == 0) return;
  void* base = ::mmap(nullptr, capacity_, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (base == MAP_FAILED) throw std::bad_alloc();
  data_ = static_cast<uint8_t*>(base);
}

AlignedBuffer::~AlignedBuffer() {
  if (data_ != nullptr) ::munmap(data_, capacity_);
}

AlignedBuffer::AlignedBuffer(AlignedBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), capacity_(std::exchange(other.capacity_, 0)) {}

AlignedBuffer& AlignedBuffer::operator=(AlignedBuffer&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) ::munmap(data_, capacity_);
    data_ = std::exchange(other.data_, nullptr);
    capacity_ = std::exchange(other.capacity_, 0);
  }
  return *this;
}

}  // namespace h5feed::io
