#pragma once
// What a command that writes a report as JSON (inspect --json, verify --json) writes on stdout
// when it has no report to write: one JSON object saying why, so that a script reading stdout
// gets an object to look at instead of empty input. The same line goes to stderr as for text
// (command_error.h).

#include <exception>
#include <string>

#include "h5feed/report_value.h"

namespace h5feed::reports {

// {"path": PATH, "error": {"code": CODE, "message": MESSAGE}}: CODE is the error code's word
// (lib/enum_names.h: "not found", "corrupt data"; "internal error" for an exception that is
// not an h5feed::Error), MESSAGE the error's.
ReportValue::Object ErrorValue(const std::string& path, const std::exception& error);

}  // namespace h5feed::reports
