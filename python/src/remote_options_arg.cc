// RemoteOptionsFromDict (remote_options_arg.h).
#include "remote_options_arg.h"

#include <string>

#include "h5feed/error.h"

namespace h5feed::python {

namespace py = pybind11;

RemoteOptions RemoteOptionsFromDict(const py::dict& remote) {
  RemoteOptions options;
  for (const auto& [key_object, value] : remote) {
    const std::string key = py::str(key_object);
    try {
      if (key == "connections") {
        options.connections = value.cast<int>();
      } else if (key == "retries") {
        options.retries = value.cast<int>();
      } else if (key == "connect_timeout_seconds") {
        options.connect_timeout_seconds = value.cast<int>();
      } else if (key == "stall_seconds") {
        options.stall_seconds = value.cast<int>();
      } else if (key == "spill_dir") {
        options.spill_dir = py::str(value);  // a str or a pathlib.Path
      } else if (key == "spill_bytes") {
        options.spill_bytes = value.cast<int64_t>();
      } else if (key == "s3_region") {
        options.s3_region = value.cast<std::string>();
      } else if (key == "s3_endpoint") {
        options.s3_endpoint = value.cast<std::string>();
      } else {
        throw Error(ErrorCode::kInvalidArgument,
                    "remote: unknown option '" + key + "'; use connections, retries, "
                    "connect_timeout_seconds, stall_seconds, spill_dir, spill_bytes, s3_region, "
                    "s3_endpoint");
      }
    } catch (const py::cast_error&) {
      throw Error(ErrorCode::kInvalidArgument,
                  "remote: option '" + key + "' must be " +
                      (key == "spill_dir"                             ? "a path"
                       : key == "s3_region" || key == "s3_endpoint" ? "a string"
                                                                    : "an integer"));
    }
  }
  return options;
}

}  // namespace h5feed::python
