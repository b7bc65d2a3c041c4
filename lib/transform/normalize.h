#pragma once
// The per-pixel arithmetic of normalization, (x / 255 - mean) / std per channel, written once
// for the CPU path (transform/sample_normalize.h) and the GPU kernel (cuda/), which must agree
// bit for bit.
//
// The exact expression, per pixel x (uint8) of channel c:
//   scale[c] = float(1.0 / (255.0 * double(std[c])))      computed once, on the host, in double
//   bias[c]  = float(-double(mean[c]) / double(std[c]))
//   out      = round_to_float(round_to_float(float(x) * scale[c]) + bias[c])
// i.e. one multiply and one add, each rounded to nearest-even, never fused. Why not one FMA:
// Debian's x86-64 baseline has no FMA instruction, so std::fma there is a libm routine many
// times slower than a multiply and an add (docs/gpu.md, "Exactness"); a rounded multiply then
// a rounded add is what both
// sides compute at full speed. The GPU side spells it __fadd_rn(__fmul_rn(x, s), b), which
// nvcc never contracts; the CPU side is compiled with -ffp-contract=off (lib/transform/
// CMakeLists.txt) so a -march with FMA cannot contract it either. Against the textbook
// (x / 255 - mean) / std in double the absolute error is at most 2 float epsilons of the
// largest term (3.7e-7 for ImageNet's mean and std, whose results span -2.1 .. 2.7), the same
// as the textbook expression evaluated in float (tests/lib/transform/normalize_test.cpp).
//
// This header is C++17 and host/device-neutral (nvcc compiles cuda/ as C++17): no std::span,
// no exceptions in what a kernel calls.

#include <cstdint>

#include "transform/host_device.h"

namespace h5feed::transform {

// Per-channel factors, passed by value to kernels (32 + 4 bytes).
struct NormalizeParams {
  static constexpr int kMaxChannels = 4;
  int channels = 0;
  float scale[kMaxChannels] = {};
  float bias[kMaxChannels] = {};
};

H5FEED_HOST_DEVICE inline float NormalizePixel(uint8_t value, float scale, float bias) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(__fmul_rn(static_cast<float>(value), scale), bias);
#else
  return static_cast<float>(value) * scale + bias;
#endif
}

// The factors for `channels` channels from the first `channels` entries of mean and std
// (`count` entries each; on the 0..1 scale, as torchvision gives them). Host only. Throws
// Error(kUnsupported) when channels > count or > kMaxChannels, Error(kInvalidArgument) when a
// std is not a positive finite number or a mean not finite.
NormalizeParams MakeNormalizeParams(const float* mean, const float* std, int count, int channels);

}  // namespace h5feed::transform
