#pragma once
// `h5feed verify`'s output, from the report the library returns (index/file_verification.h):
// a few lines for a person (the verdict, every bad chunk, bad image and problem, what was and
// was not checked) or one JSON object with every field, for scripts (`h5feed verify --json`).
// Thread-safe: pure functions of the report.

#include <string>

#include "index/file_verification.h"

namespace h5feed::reports {

// The verdict first; bad chunks and bad images are listed up to 50 each (ToJson has them all).
std::string ToText(const index::VerificationReport& report);
// Every field, and "ok".
std::string ToJson(const index::VerificationReport& report);

}  // namespace h5feed::reports
