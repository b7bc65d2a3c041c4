#pragma once
// What `h5feed merge` prints when the parts are joined: a few lines for a person, written from
// the report tree (MergeValue of the converters' merge.h), which `--json` writes whole
// (report_json.h) and h5feed.merge() returns as a dict. Thread-safe: a pure function of the tree.

#include <string>

#include "h5feed/report_value.h"

namespace h5feed::reports {

// "merged 4 parts into train.h5 in 2.1 s (120 MiB/s): 5,000 images, 40 chunks, 250 MiB", the
// chunks copied untouched and the images compressed again, and the skipped inputs recorded.
std::string MergeText(const ReportValue& report);

}  // namespace h5feed::reports
