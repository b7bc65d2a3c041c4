#pragma once
// LoaderOptions::option_names for `h5feed bench`: the flag that sets each field a bench run's
// loader is given (bench_run.cc's MakeOptions), so that the library's errors and warnings name
// `--cache-mb` rather than cache_bytes, and `--augment rrc` rather than
// output.augment.random_resized_crop. A field no flag sets is left to the library's name.

#include <string>
#include <string_view>

#include "h5feed/option_names.h"

namespace h5feed::bench {

// The flag (or `--augment` item) of the LoaderOptions field at `path`; "" for none.
std::string BenchFlagOf(std::string_view path);

// BenchFlagOf as an OptionNames.
OptionNames BenchOptionNames();

}  // namespace h5feed::bench
