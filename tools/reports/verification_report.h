#pragma once
// `h5feed verify`'s text: the verdict, every bad chunk, bad image and problem, what was and was
// not checked, written from the report tree (VerificationValue of h5feed/verify.h), which
// `--json` writes whole (report_json.h) and h5feed.verify() returns as a dict. Thread-safe: a
// pure function of the tree.

#include <string>

#include "h5feed/report_value.h"

namespace h5feed::reports {

// The verdict first; bad chunks and bad images are listed up to 50 each (the JSON has them all).
std::string VerificationText(const ReportValue& report);

}  // namespace h5feed::reports
