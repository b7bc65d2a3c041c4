// main() of the GPU tests (label gpu): runs doctest when a CUDA device is usable; otherwise
// says why and exits with 77, which ctest reports as skipped (SKIP_RETURN_CODE), never passed.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include "cuda/cuda_devices.h"

int main(int argc, char** argv) {
  const h5feed::cuda::DeviceStatus status = h5feed::cuda::QueryDevices();
  if (status.device_count == 0) {
    std::printf("skipped: no usable CUDA device (%s)\n", status.reason.c_str());
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
