#pragma once
// An input a conversion skipped, and why: what the Writer records (DatasetDescription, in the
// file's /skipped_sources and /skipped_reasons) and what `h5feed inspect` reads back
// (FileSummary::skipped). One type for both sides, so what a file says it skipped reads the
// same whichever side hands it over.

#include <string>

namespace h5feed {

struct SkippedSource {
  std::string source;  // the path (or name) of the input that was skipped
  std::string reason;  // why, in words
};

}  // namespace h5feed
