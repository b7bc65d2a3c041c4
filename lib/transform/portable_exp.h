#pragma once
// exp(x) in double, computed the same way on the host and the device. The random resized
// crop's aspect ratio is exp of a uniform draw, and the crop box is that value rounded to
// whole pixels: glibc's exp and CUDA's exp may differ in the last bit, which in rare draws
// would put the CPU's and the GPU's box one pixel apart. This one uses only additions,
// multiplications, rint and ldexp, each exact or correctly rounded on both sides (compiled
// without contraction: -ffp-contract=off on the host, --fmad=false for nvcc).
//
// Method (Cody and Waite): x = n ln2 + r with n = rint(x / ln2) and |r| <= ln2 / 2, ln2 split in
// a 32-bit head (n x head is exact for |n| < 2^20) and a tail; exp(r) by its Taylor series to
// degree 14 (truncation below 1e-18 relative); the result scaled by 2^n. Within 2 ulps of the
// true value for |x| <= 700 (tests/lib/transform/portable_exp_test.cpp); used for |x| below 10.
//
// C++17, header-only, host/device-neutral.

#include <cmath>

#include "transform/host_device.h"

namespace h5feed::transform {

H5FEED_HOST_DEVICE inline double PortableExp(double x) {
  constexpr double kInverseLn2 = 1.44269504088896338700e+00;
  constexpr double kLn2Head = 6.93147180369123816490e-01;  // fdlibm's ln2_hi
  constexpr double kLn2Tail = 1.90821492927058770002e-10;  // ln2 - ln2_hi
  const double n = rint(x * kInverseLn2);
  const double r = (x - n * kLn2Head) - n * kLn2Tail;
  // Horner from the highest term: 1 + r (1 + r/2 (1 + r/3 (1 + ... (1 + r/14))))
  double sum = 1.0;
  for (int k = 14; k >= 1; --k) sum = 1.0 + sum * (r / k);
  return ldexp(sum, static_cast<int>(n));
}

}  // namespace h5feed::transform
