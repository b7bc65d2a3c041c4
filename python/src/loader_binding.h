#pragma once
// _h5feed.NativeLoader: h5feed::Loader for h5feed/_loader.py, which gives it its Pythonic face
// (torch tensors, state_dict, torch.distributed defaults). Options arrive already translated
// to LoaderOptions' fields by h5feed/_options.py.

#include <pybind11/pybind11.h>

namespace h5feed::python {

void BindLoader(pybind11::module_& module);

}  // namespace h5feed::python
