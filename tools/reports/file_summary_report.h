#pragma once
// `h5feed inspect`'s text: a few aligned lines for a person, written from the report tree
// (SummaryValue of h5feed/file_summary.h), which `--json` writes whole (report_json.h) and
// h5feed.inspect() returns as a dict. Thread-safe: a pure function of the tree.

#include <string>

#include "h5feed/report_value.h"

namespace h5feed::reports {

// The lines of `summary`, a SummaryValue; class lists are cut after 50 and skipped lists after
// 20 (the JSON has them all).
std::string SummaryText(const ReportValue& summary);

}  // namespace h5feed::reports
