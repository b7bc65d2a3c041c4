#include "cuda/cuda_devices.h"

#include <cuda_runtime.h>

namespace h5feed::cuda {

DeviceStatus QueryDevices() {
  DeviceStatus status;
  int count = 0;
  cudaError_t result = cudaGetDeviceCount(&count);
  if (result != cudaSuccess) {
    status.reason = cudaGetErrorString(result);
    cudaGetLastError();  // clear the sticky error so later CUDA calls are not poisoned
    return status;
  }
  status.device_count = count;
  if (count == 0) status.reason = "no CUDA device found";
  return status;
}

}  // namespace h5feed::cuda
