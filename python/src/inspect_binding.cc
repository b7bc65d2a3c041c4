#include "inspect_binding.h"

#include <pybind11/stl.h>

#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cancellable_run.h"
#include "h5feed/inspect.h"
#include "loader_option_table.h"
#include "report_value_object.h"

namespace py = pybind11;

namespace h5feed::python {

void BindInspect(py::module_& module) {
  module.def(
      "inspect",
      // The warnings (the open probe's, when it could not be run) are returned rather than
      // issued here: warnings.warn needs the GIL, and they are given while it is released.
      [](const std::string& path, bool open_probe, int open_probe_stall_seconds,
         const py::dict& remote) {
        InspectOptions options;
        options.open_probe = open_probe;
        options.open_probe_stall_seconds = open_probe_stall_seconds;
        options.remote = OptionTableOf<RemoteOptions>::Get().FromDict(remote);
        options.remote.option_names = PythonRemoteOptionName;
        std::vector<std::string> warnings;
        options.on_warning = [&](const std::string& warning) { warnings.push_back(warning); };
        // The probe's wait and HDF5's reads, without the GIL; Ctrl-C ends a remote file's
        // requests (RemoteOptions::cancel), as it ends a Loader's open (loader_binding.cc).
        auto cancel = std::make_shared<std::atomic<bool>>(false);
        options.remote.cancel = cancel;
        const FileSummary summary = RunCancellable(
            *cancel, [&](const std::atomic<bool>&) { return InspectFile(path, options); });
        return std::make_pair(ReportValueObject(SummaryValue(summary)), warnings);
      },
      py::arg("path"), py::arg("open_probe") = true, py::arg("open_probe_stall_seconds") = 60,
      py::arg("remote") = py::dict());
}

}  // namespace h5feed::python
