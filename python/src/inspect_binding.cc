#include "inspect_binding.h"

#include <string>

#include "format/file_summary.h"

namespace py = pybind11;

namespace h5feed::python {

void BindInspect(py::module_& module) {
  module.def(
      "inspect_json",
      [](const std::string& path) {
        std::string json;
        {
          py::gil_scoped_release without_gil;  // reads metadata and labels under the HDF5 lock
          json = ToJson(SummarizeFile(path));
        }
        return json;
      },
      py::arg("path"));
}

}  // namespace h5feed::python
