#include "verify_binding.h"

#include <pybind11/stl.h>

#include <string>

#include "enum_names.h"
#include "h5feed/verify.h"
#include "loader_option_table.h"
#include "report_value_object.h"

namespace py = pybind11;

namespace h5feed::python {

void BindVerify(py::module_& module) {
  module.def(
      "verify",
      [](const std::string& path, int threads, const std::string& file_locking,
         const py::dict& remote, const std::string& images) {
        VerifyOptions options;
        options.threads = threads;
        options.images_dataset = images;
        options.file_locking = ParseName<FileLocking>(file_locking);
        options.remote = OptionTableOf<RemoteOptions>::Get().FromDict(remote);
        VerificationReport report;
        {
          py::gil_scoped_release without_gil;  // reads and decodes every chunk
          report = VerifyFile(path, options);
        }
        return ReportValueObject(VerificationValue(report));
      },
      py::arg("path"), py::kw_only(), py::arg("threads"), py::arg("file_locking"),
      py::arg("remote"), py::arg("images"));
}

}  // namespace h5feed::python
