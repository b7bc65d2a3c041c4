#pragma once
// Whether a usable CUDA device is present. The loader asks once and falls back to the CPU
// path (saying so) when there is none: no device, no driver, or a driver too old.

#include <string>

namespace h5feed::cuda {

struct DeviceStatus {
  int device_count = 0;  // usable devices; 0 when CUDA cannot be used
  std::string reason;    // why not, when device_count == 0 (the CUDA runtime's words)
};

DeviceStatus QueryDevices();

}  // namespace h5feed::cuda
