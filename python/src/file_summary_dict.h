#pragma once
// A FileSummary (h5feed/file_summary.h) as the dict h5feed.inspect() returns: the keys, nesting
// and order of `h5feed inspect --json` (tools/reports/file_summary_report.h), built from the
// struct directly. tests/python/test_convert_inspect.py holds the two equal.

#include <pybind11/pybind11.h>

#include "h5feed/file_summary.h"

namespace h5feed::python {

// Needs the GIL. Text that is not UTF-8 (fixed-length strings from h5py may hold anything)
// has its bad bytes replaced, as the command's JSON does, rather than refused.
pybind11::dict FileSummaryDict(const FileSummary& summary);

}  // namespace h5feed::python
