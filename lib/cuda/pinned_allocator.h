#pragma once
// Host slot memory pinned with cudaHostAlloc: the DMA engine copies straight from it, so an
// H2D cudaMemcpyAsync from a slot is truly asynchronous (from pageable memory the runtime
// stages through its own pinned buffer, synchronously) and runs at the PCIe rate. Allocated
// once, when the loader opens: pinning is slow (docs/gpu.md, "Streams, events, buffers").

#include <memory>

#include "memory/host_allocator.h"

namespace h5feed::cuda {

// cudaHostAllocPortable: the slots are pinned for every device and context of the process.
std::shared_ptr<memory::HostAllocator> PinnedHostAllocator();

}  // namespace h5feed::cuda
