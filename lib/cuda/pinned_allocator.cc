#include "cuda/pinned_allocator.h"

#include <cuda_runtime.h>

#include <string>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::cuda {
namespace {

class Pinned final : public memory::HostAllocator {
 public:
  void* Allocate(size_t bytes) override {
    if (bytes == 0) throw Error(ErrorCode::kInvalidArgument, "host allocation of 0 bytes");
    void* region = nullptr;
    cudaError_t result = cudaHostAlloc(&region, bytes, cudaHostAllocPortable);
    if (result != cudaSuccess) {
      cudaGetLastError();
      throw MakeError(
          ErrorCode::kIo,
          "cannot pin {} bytes of host slot memory (cudaHostAlloc: {}); lower slots or batch_size",
          bytes, cudaGetErrorString(result));
    }
    // cudaHostAlloc returns page-aligned memory, as HostAllocator promises.
    return region;
  }

  void Deallocate(void* region, size_t) noexcept override {
    if (region != nullptr) cudaFreeHost(region);
  }

  std::string_view name() const noexcept override { return "CUDA pinned host"; }
};

}  // namespace

std::shared_ptr<memory::HostAllocator> PinnedHostAllocator() {
  static const std::shared_ptr<memory::HostAllocator> allocator = std::make_shared<Pinned>();
  return allocator;
}

}  // namespace h5feed::cuda
