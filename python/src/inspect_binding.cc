#include "inspect_binding.h"

#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "inspect/file_summary.h"
#include "probe/open_probe.h"
#include "reports/file_summary_report.h"

namespace py = pybind11;

namespace h5feed::python {

void BindInspect(py::module_& module) {
  module.def(
      "inspect_json",
      // (json, warnings): the warnings (the open probe's, when it could not be run) are issued
      // by the Python side (warnings.warn).
      [](const std::string& path, bool open_probe, int open_probe_stall_seconds) {
        std::string json;
        std::vector<std::string> warnings;
        {
          py::gil_scoped_release without_gil;  // reads metadata and labels under the HDF5 lock
          if (open_probe) {  // HDF5 1.10.8 crashes or hangs on some damaged files: not here
            probe::ProbeRequest request;
            request.target = probe::ProbeTarget::kSummary;
            request.stall = std::chrono::seconds(open_probe_stall_seconds);
            probe::ProbeOpen(path, request,
                             [&](const std::string& warning) { warnings.push_back(warning); });
          }
          json = reports::ToJson(inspect::SummarizeFile(path));
        }
        return std::make_pair(json, warnings);
      },
      py::arg("path"), py::arg("open_probe") = true, py::arg("open_probe_stall_seconds") = 60);
}

}  // namespace h5feed::python
