#pragma once
// `h5feed verify`'s output, from the report the library returns (h5feed/verify.h):
// a few lines for a person (the verdict, every bad chunk, bad image and problem, what was and
// was not checked) or one JSON object with every field, for scripts (`h5feed verify --json`).
// Thread-safe: pure functions of the report.

#include <string>

#include "h5feed/verify.h"

namespace h5feed::reports {

// The verdict first; bad chunks and bad images are listed up to 50 each (ToJson has them all).
std::string ToText(const VerificationReport& report);
// Every field, and "ok".
std::string ToJson(const VerificationReport& report);

}  // namespace h5feed::reports
