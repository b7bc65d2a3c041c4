#pragma once
// _h5feed.prepend_hdf5_plugin_path(folder): puts the folder holding h5feed's zstd filter plugin
// at the front of HDF5's plugin search path, in the libhdf5 this module links, which is the
// one Debian's h5py links: h5py in the same process then reads h5feed's zstd files, as it does
// after `import hdf5plugin` (h5feed/_hdf5_plugins.py calls it at `import h5feed`).

#include <pybind11/pybind11.h>

namespace h5feed::python {

void BindHdf5PluginPath(pybind11::module_& module);

}  // namespace h5feed::python
