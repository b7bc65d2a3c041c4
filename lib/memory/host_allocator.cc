#include "memory/host_allocator.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::memory {
namespace {

class PageAligned final : public HostAllocator {
 public:
  void* Allocate(size_t bytes) override {
    if (bytes == 0) throw Error(ErrorCode::kInvalidArgument, "host allocation of 0 bytes");
    // MAP_POPULATE: every page is faulted in and zeroed now, at Open, not by the first
    // epoch's first writes (a 30 MB CelebA-shaped slot is 7,300 page faults), as the chunk
    // cache's buffers are. Best effort: without memory to spare it maps lazily instead.
    void* region = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (region == MAP_FAILED) {
      int error = errno;
      throw MakeError(
          ErrorCode::kIo,
          "cannot allocate {} bytes of host slot memory (mmap: {}); lower slots or batch_size",
          bytes, std::strerror(error));
    }
    return region;
  }

  void Deallocate(void* region, size_t bytes) noexcept override {
    if (region != nullptr) munmap(region, bytes);
  }

  std::string_view name() const noexcept override { return "page-aligned host"; }
};

}  // namespace

std::shared_ptr<HostAllocator> PageAlignedAllocator() {
  static const std::shared_ptr<HostAllocator> allocator = std::make_shared<PageAligned>();
  return allocator;
}

}  // namespace h5feed::memory
