#pragma once
// Range checks of numeric flags that say the range in words: "--batch: must be at least 1, not
// 0". (CLI11's PositiveNumber and NonNegativeNumber print the limits of a double in full, a
// number of some 300 digits.) A whole number beyond int64_t's range is refused by both, saying
// the limit: CLI11 would store the limit itself without a word.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace h5feed::cli {

// A number >= `minimum`; `hint`, when given, follows the complaint ("leave --chunk out for the
// default").
CLI::Validator AtLeast(double minimum, const std::string& hint = "");

// A number in [low, high].
CLI::Validator InRange(double low, double high);

// InRange for a whole-number flag whose --help shows its range, "INT in [1 - 1024]" (CLI11's
// Range showed it too, but refused 1.5 as "Value 1.5 not in range 1 to 1024").
CLI::Validator WholeInRange(int64_t low, int64_t high);

// A whole number uint64_t holds (a seed). CLI11 reads "-1" into a uint64_t as 2^64 - 1 without
// a word, and a double cannot tell 2^64 - 1 from 2^64, so the text itself is checked.
CLI::Validator WholeUint64();

}  // namespace h5feed::cli
