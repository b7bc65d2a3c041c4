#pragma once
// _h5feed.inspect(path, open_probe, open_probe_stall_seconds, remote): h5feed::InspectFile
// (h5feed/inspect.h), the library function `h5feed inspect` calls, with the same options;
// returns (the summary as a dict, report_value_object.h; the warnings), which h5feed.inspect
// (h5feed/_convert.py) issues with warnings.warn.

#include <pybind11/pybind11.h>

namespace h5feed::python {

void BindInspect(pybind11::module_& module);

}  // namespace h5feed::python
