// PortableExp (portable_exp.h), the exp the crop boxes use on both sides: as accurate as the
// C library's where it is used, and finite, positive and monotone.
#include "transform/portable_exp.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace h5feed::transform {
namespace {

// The distance between two positive doubles in units in the last place.
int64_t UlpDistance(double a, double b) {
  int64_t x = 0, y = 0;
  std::memcpy(&x, &a, sizeof x);
  std::memcpy(&y, &b, sizeof y);
  return x > y ? x - y : y - x;
}

TEST_CASE("PortableExp is within 2 ulps of exp from -700 to 700") {
  int64_t worst = 0;
  for (int i = -700000; i <= 700000; ++i) {
    const double x = i / 1000.0 + 1e-7 * (i % 7);
    worst = std::max(worst, UlpDistance(PortableExp(x), std::exp(x)));
  }
  CHECK(worst <= 2);
  CHECK(PortableExp(0.0) == 1.0);
}

TEST_CASE("PortableExp never decreases over the aspect ratios crops use") {
  double previous = 0;
  int decreases = 0;
  for (int i = -100000; i <= 100000; ++i) {
    const double value = PortableExp(i * 1e-4);  // log ratios -10 .. 10
    decreases += value < previous;
    previous = value;
  }
  CHECK(decreases == 0);
}

}  // namespace
}  // namespace h5feed::transform
