#pragma once
// Where host slot memory comes from. The slot pool asks an allocator for one region and never
// knows whether it is pinned: without CUDA the loader wires PageAlignedAllocator(); the GPU
// stage wires an allocator that calls cudaHostAlloc, so memory/ never depends on cuda/.

#include <cstddef>
#include <memory>
#include <string_view>

namespace h5feed::memory {

// Thread-safety: Allocate and Deallocate may be called from any thread; implementations keep no
// shared mutable state (or guard it). Ownership: a region returned by Allocate belongs to the
// caller until it passes it back to Deallocate with the same size.
class HostAllocator {
 public:
  virtual ~HostAllocator() = default;

  // A region of `bytes` bytes (> 0), aligned to at least kPageBytes, uninitialised. Throws
  // Error(kIo) naming the size when the system refuses.
  virtual void* Allocate(size_t bytes) = 0;
  // Returns a region from Allocate(bytes).
  virtual void Deallocate(void* region, size_t bytes) noexcept = 0;
  // For messages and statistics: "page-aligned host", "CUDA pinned host".
  virtual std::string_view name() const noexcept = 0;
};

// Linux's page: slots start on one so DMA engines (cudaHostRegister, O_DIRECT) accept them.
inline constexpr size_t kPageBytes = 4096;

// Anonymous mmap: page-aligned, its pages committed at allocation (so the first epoch does not
// page-fault through the slots), returned to the system on Deallocate (a multi-GiB slot ring
// does not linger in malloc's arenas after the loader dies).
std::shared_ptr<HostAllocator> PageAlignedAllocator();

}  // namespace h5feed::memory
