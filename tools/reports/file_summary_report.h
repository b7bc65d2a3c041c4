#pragma once
// `h5feed inspect`'s output, from the summary the library returns (h5feed/file_summary.h):
// one JSON object with every field, for scripts (`h5feed inspect --json`, SummaryValue written
// as JSON; h5feed.inspect() in Python returns the same value as a dict), or a few aligned lines
// for a person. Thread-safe: pure functions of the summary.

#include <string>

#include "h5feed/file_summary.h"

namespace h5feed::reports {

// Every field of `summary`, keys in the order FileSummary declares them. Bytes of names that
// are not UTF-8 (fixed-length strings from h5py may hold anything) are replaced, not refused.
std::string ToJson(const FileSummary& summary);

// A few aligned lines; class lists are cut after 50 and skipped lists after 20 (ToJson has
// them all).
std::string ToText(const FileSummary& summary);

}  // namespace h5feed::reports
