#pragma once
// DIR/report.md of `h5feed bench sweep`: what was run, on what, the results table (best
// first, the ceiling beside each run), the ceilings of each file variant, and the
// recommendation. Pure text from the rows, so it is unit-tested from fixed rows.

#include <span>
#include <string>
#include <vector>

#include "recommendation.h"
#include "sweep_row.h"

namespace h5feed::bench {

struct ReportContext {
  std::string command;  // the command line that produced it
  std::string file;     // the input file
  std::string machine;  // "2 cores, Linux 6.1, ..." (free text)
  std::string date;
  std::vector<std::string> notes;  // e.g. "the run was interrupted", "gnuplot not found"
  std::string plot;                // the PNG's file name relative to the report, or empty
};

std::string SweepReportMarkdown(std::span<const SweepRow> rows, const Recommendation& r,
                                const RecommendOptions& options, const ReportContext& context);

// Writes `text` to `path` (via a temporary file renamed over it). Throws Error(kIo).
void WriteTextFile(const std::string& path, const std::string& text);

}  // namespace h5feed::bench
