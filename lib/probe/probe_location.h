#pragma once
// Where the open probe program (h5feed-open-probe) is. The build tree puts it in
// BUILD/libexec/h5feed/ and `cmake --install` in PREFIX/libexec/h5feed/, so every binary of
// either tree (the h5feed command in bin/ or tools/, libh5feed.so in lib/, the Python module in
// python/h5feed/ or lib/python3/dist-packages/h5feed/, a test) finds it a few folders above
// its own. Looked for, in order:
//   1. $H5FEED_OPEN_PROBE, when set (a path; only that is tried);
//   2. libexec/h5feed/h5feed-open-probe in the folder of the binary holding this code, or in
//      one of its 4 parents;
//   3. the same from the running program (/proc/self/exe), when that is another binary;
//   4. under the install prefix this library was configured with;
//   5. in the build tree this library was built in.
// A program linking the static library from elsewhere, installed to another prefix than the
// configured one, sets $H5FEED_OPEN_PROBE.
//
// Thread-safety: safe to call from many threads at once (reads the environment and stats files).

#include <string>

namespace h5feed::probe {

struct ProbeLocation {
  std::string path;    // an executable file; empty when none was found
  std::string looked;  // where it was looked for, for the warning when it was not found
};

ProbeLocation FindOpenProbe();

}  // namespace h5feed::probe
