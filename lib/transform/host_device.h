#pragma once
// H5FEED_HOST_DEVICE marks the functions of transform/ that the CPU path and the CUDA kernels
// (cuda/) both compile: __host__ __device__ under nvcc, nothing for the host compiler.
//
// The headers that use it are C++17 and host/device-neutral (nvcc compiles cuda/ as C++17):
// no std::span, no exceptions, and no call whose result may differ between the host and the
// device.

#if defined(__CUDACC__)
#define H5FEED_HOST_DEVICE __host__ __device__
#else
#define H5FEED_HOST_DEVICE
#endif
