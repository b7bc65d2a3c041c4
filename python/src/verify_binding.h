#pragma once
// _h5feed.verify(path, threads, file_locking, remote): h5feed::VerifyFile (h5feed/verify.h), the
// library function `h5feed verify` calls, with the same options; returns its report as a dict
// (VerificationValue, report_value_object.h), the keys `h5feed verify --json` writes. It checks
// in this process, with the GIL released: unlike the command, which checks in a child process,
// a file that crashes HDF5 itself takes the interpreter down (docs/python.md).

#include <pybind11/pybind11.h>

namespace h5feed::python {

void BindVerify(pybind11::module_& module);

}  // namespace h5feed::python
