#pragma once
// How the sweep's report, recommendation and progress lines write one number: a printf format
// holding exactly one floating-point conversion, or "-" for a figure that was not measured.

#include <string>

namespace h5feed::bench {

// Fixed(", %.2f of the ceiling", 0.61) -> ", 0.61 of the ceiling"; kNotMeasured -> "-".
std::string Fixed(const char* format, double value);

// 12345.6 -> "12,346" (rounded, thousands grouped); kNotMeasured -> "-".
std::string Grouped(double value);

}  // namespace h5feed::bench
