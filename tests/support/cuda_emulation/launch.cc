// Kernel launches (cuda_emulation/launch.h): the checks CUDA makes of a launch's shape, then
// the grid queued on its stream, run there by the stream's block threads (block_threads.h).
#include "cuda_emulation/launch.h"

#include <mutex>
#include <utility>

#include "block_threads.h"
#include "call_result.h"
#include "device.h"
#include "stream.h"

namespace cuda_emulation {

cudaError_t Launch(const cudaLaunchConfig_t& config, const void* kernel,
                   std::function<void()> body) {
  if (const cudaError_t refused = Refusal()) return Result(refused);
  CUstream_st* on = Device::Get().Stream(config.stream);
  if (on == nullptr) return Result(cudaErrorInvalidResourceHandle);
  const dim3& blocks = config.gridDim;
  const dim3& threads = config.blockDim;
  if (blocks.x == 0 || blocks.y == 0 || blocks.z == 0 || threads.x == 0 || threads.y == 0 ||
      threads.z == 0 || blocks.y > 65535 || blocks.z > 65535 || threads.z > 64 ||
      static_cast<unsigned long long>(threads.x) * threads.y * threads.z > 1024) {
    return Result(cudaErrorInvalidConfiguration);
  }
  // Above 48 KiB a kernel must opt in (cudaFuncSetAttribute), which is not emulated.
  if (config.dynamicSmemBytes > (48 << 10)) return Result(cudaErrorInvalidValue);
  if (config.numAttrs != 0) return Result(cudaErrorNotSupported);
  CUstream_st::Operation launch;
  launch.kind = Work::kKernel;
  launch.work = [grid = Grid{blocks, threads, config.dynamicSmemBytes, std::move(body)},
                 lock = Device::Get().KernelLock(kernel)](CUstream_st& stream) {
    std::lock_guard turn(*lock);
    return stream.block_threads().Run(grid);
  };
  on->Enqueue(std::move(launch));
  return cudaSuccess;
}

}  // namespace cuda_emulation
