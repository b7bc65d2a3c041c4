#pragma once
// What `h5feed convert` and `h5feed rechunk` print when a conversion ends: a few lines for a
// person, written from the report tree (ConversionValue of the converters' conversion.h), which
// `--json` writes whole (report_json.h) and h5feed.convert_*() return as a dict. Thread-safe: a
// pure function of the tree.

#include <string>

#include "h5feed/report_value.h"

namespace h5feed::reports {

// "converted 40 of 41 images from photos/ to train.h5 in 1.2 s (34 images/s)", how they were
// stored, and every skipped input. `input` names what was converted, as the command was given it.
std::string ConversionText(const ReportValue& report, const std::string& input);

}  // namespace h5feed::reports
