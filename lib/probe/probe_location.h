#pragma once
// Where the open probe program (h5feed-open-probe) is: libexec/h5feed/ of the build or install
// tree, found as helper_location.h says; $H5FEED_OPEN_PROBE names it explicitly.
//
// Thread-safety: safe to call from many threads at once.

#include "probe/helper_location.h"

namespace h5feed::probe {

using ProbeLocation = HelperLocation;

ProbeLocation FindOpenProbe();

}  // namespace h5feed::probe
