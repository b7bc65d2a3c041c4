#include "verify_binding.h"

#include <pybind11/stl.h>

#include <atomic>
#include <memory>
#include <string>

#include "cancellable_run.h"
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
        options.remote.option_names = PythonRemoteOptionName;
        // Reads and decodes every chunk, without the GIL; Ctrl-C ends a remote file's requests
        // (RemoteOptions::cancel), as it ends a Loader's open (loader_binding.cc).
        auto cancel = std::make_shared<std::atomic<bool>>(false);
        options.remote.cancel = cancel;
        const VerificationReport report = RunCancellable(
            *cancel, [&](const std::atomic<bool>&) { return VerifyFile(path, options); });
        return ReportValueObject(VerificationValue(report));
      },
      py::arg("path"), py::kw_only(), py::arg("threads"), py::arg("file_locking"),
      py::arg("remote"), py::arg("images"));
}

}  // namespace h5feed::python
