#pragma once
// The CUDA runtime of the emulation (docs/gpu.md, "The CUDA emulation"): what the tests'
// emulated builds of lib/cuda/ and the GPU tests find as <cuda_runtime.h>, in place of CUDA's.
// Device code compiles as host C++ (device_code.h), the runtime calls run on the host
// (runtime_api.h), kernels launch through cudaLaunchKernelEx (launch.h). No CUDA header or
// library is used: the emulation builds where CUDA is not installed.

#include "cuda_emulation/device_code.h"
#include "cuda_emulation/launch.h"
#include "cuda_emulation/runtime_api.h"
#include "cuda_emulation/types.h"
