#pragma once
// Range checks of numeric flags that say the range in words: "--batch: must be at least 1, not
// 0". (CLI11's PositiveNumber and NonNegativeNumber print the limits of a double in full, a
// number of some 300 digits.)

#include <CLI/CLI.hpp>
#include <string>

namespace h5feed::cli {

// A number >= `minimum`; `hint`, when given, follows the complaint ("leave --chunk out for the
// default").
CLI::Validator AtLeast(double minimum, const std::string& hint = "");

// A number in [low, high].
CLI::Validator InRange(double low, double high);

}  // namespace h5feed::cli
