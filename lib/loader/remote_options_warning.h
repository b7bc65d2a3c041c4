#pragma once
// The warning Open gives when the caller set remote options that the path does not use: a
// spill folder or a number of connections for a local file, an S3 region or endpoint for an
// http(s):// URL. They are ignored there, which a caller who meant them to act (a spill
// folder for a "remote" file that is in fact mounted locally) should hear once, at Open.

#include <optional>
#include <string>

#include "h5feed/loader_options.h"

namespace h5feed::loader {

// The warning for `path` and options.remote, naming each option set and ignored as the
// caller spells it; none when every option set applies (or none is set).
std::optional<std::string> UnusedRemoteOptionsWarning(const std::string& path,
                                                      const LoaderOptions& options);

}  // namespace h5feed::loader
