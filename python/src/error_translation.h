#pragma once
// h5feed::Error arrives in Python as the h5feed.Error subclass for its code (h5feed/_errors.py:
// InvalidArgumentError is also a ValueError, NotFoundError a FileNotFoundError, ...), with the
// C++ message unchanged: what failed, where (file, dataset, chunk) and what to do.

#include <pybind11/pybind11.h>

namespace h5feed::python {

// Translates h5feed::Error, and sets _h5feed.error_codes: (h5feed.ErrorCode's member name,
// the code's ToString word) for every code, the members h5feed/_errors.py makes.
void RegisterErrorTranslation(pybind11::module_& module);

}  // namespace h5feed::python
