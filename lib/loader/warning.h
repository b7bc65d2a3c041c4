#pragma once
// Where the loader's warnings go: LoaderOptions::on_warning when the caller gave one (Python
// routes it, tests collect it), else one "h5feed: warning: ..." line on stderr. A size in a
// warning is written as ByteSize (byte_size.h): rounded up, so it names a size that is enough.

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

}  // namespace h5feed::loader
