#pragma once
// The options of the commands that read a file which may be remote (inspect, verify, bench):
// the same flags, help and meaning everywhere (h5feed/remote_options.h, docs/remote.md).

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "h5feed/remote_options.h"

namespace h5feed::cli {

// Adds --connections, --retries, --request-stall-seconds, --spill-dir, --spill-mb, --s3-region
// and --s3-endpoint to `command`, stored in `options` (whose values are the defaults shown),
// and sets options.option_names to RemoteOptionFlag, so that errors name the flags.
void AddRemoteOptions(CLI::App& command, RemoteOptions& options);

// The flag that sets RemoteOptions' field `field` ("spill_dir" -> "--spill-dir"); "" for a
// field without one.
std::string RemoteOptionFlag(std::string_view field);

// The flags AddRemoteOptions reads back into `options`, for those fields that differ from
// RemoteOptions' defaults (so a child `h5feed bench` of a sweep reads as its parent does).
std::vector<std::string> RemoteOptionsArguments(const RemoteOptions& options);

}  // namespace h5feed::cli
