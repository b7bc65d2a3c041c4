#pragma once
// The `remote` argument of h5feed.Loader: a dict whose keys are RemoteOptions' fields
// (h5feed/remote_options.h), e.g. {"spill_dir": "/local/spill", "connections": 32}.

#include <pybind11/pybind11.h>

#include "h5feed/remote_options.h"

namespace h5feed::python {

// Throws Error(kInvalidArgument) naming an unknown key or a value of the wrong type.
RemoteOptions RemoteOptionsFromDict(const pybind11::dict& remote);

}  // namespace h5feed::python
