// FindOpenProbe (probe_location.h).

#include "probe/probe_location.h"

#include "probe/open_probe_protocol.h"

namespace h5feed::probe {

ProbeLocation FindOpenProbe() {
  // Set by lib/probe/CMakeLists.txt: the program's path relative to a tree's top
  // ("libexec/h5feed/h5feed-open-probe"), and the install and build trees' own copies.
  static constexpr process::Helper kOpenProbe{kProgramVariable, H5FEED_OPEN_PROBE_RELATIVE_PATH,
                                              H5FEED_OPEN_PROBE_INSTALLED_PATH,
                                              H5FEED_OPEN_PROBE_BUILT_PATH, true};
  return process::FindHelper(kOpenProbe);
}

}  // namespace h5feed::probe
