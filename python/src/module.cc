// _h5feed: the native half of `import h5feed`. Everything a user touches is in the pure-Python
// package around it (python/h5feed/); this module only binds the library.

#include <pybind11/pybind11.h>

#include "convert_binding.h"
#include "error_translation.h"
#include "hdf5_plugin_path.h"
#include "inspect_binding.h"
#include "loader_binding.h"
#include "merge_binding.h"
#include "verify_binding.h"
#include "write_binding.h"

PYBIND11_MODULE(_h5feed, module) {
  module.doc() = "h5feed's native extension; use the h5feed package, not this module";
  module.attr("__version__") = H5FEED_VERSION;
  h5feed::python::RegisterErrorTranslation(module);
  h5feed::python::BindLoader(module);
  h5feed::python::BindConvert(module);
  h5feed::python::BindInspect(module);
  h5feed::python::BindVerify(module);
  h5feed::python::BindMerge(module);
  h5feed::python::BindWrite(module);
  h5feed::python::BindHdf5PluginPath(module);
}
