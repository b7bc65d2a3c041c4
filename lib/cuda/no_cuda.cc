// The GPU stage's entry points in a build without nvcc: no device is ever usable, and the
// loader, told so by QueryDevices, runs the CPU path.
#include "cuda/cuda_devices.h"
#include "cuda/device_stage.h"
#include "h5feed/error.h"

namespace h5feed::cuda {

DeviceStatus QueryDevices() {
  DeviceStatus status;
  status.reason = "this h5feed was built without CUDA (nvcc was not found at configure time)";
  return status;
}

std::unique_ptr<DeviceStage> OpenDeviceStage(const DeviceStageOptions&) {
  throw Error(ErrorCode::kUnsupported, "this h5feed was built without CUDA");
}

}  // namespace h5feed::cuda
