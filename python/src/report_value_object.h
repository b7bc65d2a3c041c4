#pragma once
// A ReportValue (h5feed/report_value.h) as Python objects: null as None, numbers, text as str,
// lists as list, objects as dict with their keys in order. h5feed.inspect() returns a
// FileSummary so (SummaryValue), the same value `h5feed inspect --json` writes.

#include <pybind11/pybind11.h>

#include "h5feed/report_value.h"

namespace h5feed::python {

// Needs the GIL. Text that is not UTF-8 (fixed-length strings from h5py may hold anything)
// has its bad bytes replaced, as the command's JSON does, rather than refused.
pybind11::object ReportValueObject(const ReportValue& value);

}  // namespace h5feed::python
