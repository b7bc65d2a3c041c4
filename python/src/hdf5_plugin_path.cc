#include "hdf5_plugin_path.h"

#include <pybind11/stl.h>

#include <string>

#include "h5feed/hdf5_plugins.h"

namespace py = pybind11;

namespace h5feed::python {

void BindHdf5PluginPath(py::module_& module) {
  // Returns the search path after the change. Called once, at import, before any loader runs.
  module.def(
      "prepend_hdf5_plugin_path",
      [](const std::string& folder) { return PrependHdf5PluginFolder(folder); }, py::arg("folder"));
}

}  // namespace h5feed::python
