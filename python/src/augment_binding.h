#pragma once
// h5feed.Augment's fields (as h5feed/_options.py sends them: one dict per view spec) to the
// C++ AugmentOptions (lib/include/h5feed/output_options.h).

#include <pybind11/pybind11.h>

#include <vector>

#include "h5feed/output_options.h"

namespace h5feed::python {

// One AugmentOptions per dict of `specs`. Throws Error(kInvalidArgument) naming a missing or
// unknown key (a bug in _options.py, which fills every key).
std::vector<AugmentOptions> AugmentSpecs(const pybind11::list& specs);

}  // namespace h5feed::python
