#pragma once
// Where the open probe program (h5feed-open-probe) is: libexec/h5feed/ of the build or install
// tree, found as process/helper_location.h says; $H5FEED_OPEN_PROBE names it explicitly.
//
// Thread-safety: safe to call from many threads at once.

#include "process/helper_location.h"

namespace h5feed::probe {

using ProbeLocation = process::HelperLocation;

ProbeLocation FindOpenProbe();

}  // namespace h5feed::probe
