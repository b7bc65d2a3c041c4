#pragma once
// The one JSON walker of the h5feed command: any report tree (h5feed/report_value.h) written as
// JSON, keys in the order the tree holds them. Every `--json` of the command goes through it
// (inspect, verify, convert, rechunk, merge, bench), as every dict Python returns goes through
// python/src/report_value_object.h, so a report's JSON and its dict have the same keys.
// Thread-safe: pure functions of the value.

#include <string>

#include "h5feed/report_value.h"

namespace h5feed::reports {

// Indented by two spaces, with a final newline. Bytes of text that is not UTF-8 (fixed-length
// strings from h5py may hold anything) are replaced, not refused.
std::string ToJson(const ReportValue& value);

// On one line, with a final newline: for a report a script reads line by line (`h5feed bench
// --json`, whose last line a sweep parses).
std::string ToJsonLine(const ReportValue& value);

}  // namespace h5feed::reports
