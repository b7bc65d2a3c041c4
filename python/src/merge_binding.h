#pragma once
// _h5feed.merge(parts, out, seed, overwrite): h5feed::MergeParts (the converters' merge.h), the
// function `h5feed merge` calls, with the same options; returns its report as a dict
// (MergeValue, report_value_object.h), the keys `h5feed merge --json` writes. Ctrl-C stops it
// and leaves nothing at `out` (cancellable_run.h).

#include <pybind11/pybind11.h>

namespace h5feed::python {

void BindMerge(pybind11::module_& module);

}  // namespace h5feed::python
