#pragma once
// _h5feed.inspect_json(path): what `h5feed inspect --json` prints, from the same library
// function (inspect/file_summary.h) and rendering (tools/reports/file_summary_report.h);
// h5feed.inspect parses it into a dict.

#include <pybind11/pybind11.h>

namespace h5feed::python {

void BindInspect(pybind11::module_& module);

}  // namespace h5feed::python
