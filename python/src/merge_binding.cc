#include "merge_binding.h"

#include <pybind11/stl.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cancellable_run.h"
#include "merge.h"
#include "report_value_object.h"

namespace py = pybind11;

namespace h5feed::python {

void BindMerge(py::module_& module) {
  module.def(
      "merge",
      [](const std::vector<std::string>& parts, const std::string& out, uint64_t seed,
         bool overwrite) {
        converters::MergeOptions options;
        options.seed = seed;
        options.overwrite = overwrite;
        options.option_names = [](std::string_view path) {
          return path == "overwrite" ? std::string("overwrite=True") : std::string();
        };
        const converters::MergeReport report = RunCancellable([&](const std::atomic<bool>& cancel) {
          options.cancel = &cancel;
          return converters::MergeParts(parts, out, options);
        });
        return ReportValueObject(converters::MergeValue(report));
      },
      py::arg("parts"), py::arg("out"), py::kw_only(), py::arg("seed"), py::arg("overwrite"));
}

}  // namespace h5feed::python
