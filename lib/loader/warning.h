#pragma once
// Where the loader's warnings go: LoaderOptions::on_warning when the caller gave one (Python
// routes it, tests collect it), else one "h5feed: warning: ..." line on stderr; and how they
// write a memory size.

#include <cstdint>
#include <cstdio>
#include <string>

#include "h5feed/loader_options.h"

namespace h5feed::loader {

inline void Warn(const LoaderOptions& options, const std::string& warning) {
  if (options.on_warning) {
    options.on_warning(warning);
  } else {
    std::fprintf(stderr, "h5feed: warning: %s\n", warning.c_str());
  }
}

// "30 KiB", "4812 MiB": rounded up, since a warning names the size that is enough.
inline std::string RoundedUpSize(int64_t bytes) {
  return bytes >= (1 << 20) ? std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"
                            : std::to_string((bytes + 1023) >> 10) + " KiB";
}

}  // namespace h5feed::loader
