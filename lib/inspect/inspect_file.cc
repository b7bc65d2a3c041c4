// InspectFile (h5feed/inspect.h): the open probe, then the summary in this process. The probe
// reads with the caller's RemoteOptions and hands back the error it met, so a remote file that
// cannot be reached is retried once, in the probe, and not again here (probe/open_probe.h).

#include "h5feed/inspect.h"

#include <chrono>

#include "h5feed/error.h"
#include "make_error.h"
#include "probe/open_probe.h"
#include "remote_options_check.h"
#include "summary/file_summary.h"

namespace h5feed {

FileSummary InspectFile(const std::string& path, const InspectOptions& options) {
  if (options.open_probe_stall_seconds < 1) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "InspectOptions.open_probe_stall_seconds is {}; it must be >= 1",
                    options.open_probe_stall_seconds);
  }
  if (!options.open_probe &&
      options.open_probe_stall_seconds != InspectOptions{}.open_probe_stall_seconds) {
    // The probe's watchdog: without the probe it would be ignored without a word.
    throw MakeError(ErrorCode::kInvalidArgument,
                    "InspectOptions.open_probe_stall_seconds is {}, and open_probe is false: the "
                    "stall limit is the open probe's, and an open hung in this process cannot be "
                    "given up. Keep the probe on, or leave the limit at its default ({})",
                    options.open_probe_stall_seconds, InspectOptions{}.open_probe_stall_seconds);
  }
  CheckRemoteOptions(options.remote, [](std::string_view field) {
    return "InspectOptions.remote." + std::string(field);
  });
  if (options.open_probe) {  // HDF5 1.10.8 crashes or hangs on some damaged files: not here
    probe::ProbeRequest request;
    request.target = probe::ProbeTarget::kSummary;
    request.stall = std::chrono::seconds(options.open_probe_stall_seconds);
    request.remote = options.remote;
    probe::ProbeOpen(path, request, [&](const std::string& warning) {
      if (options.on_warning) options.on_warning(warning);
    });
  }
  return summary::SummarizeFile(path, options.remote);
}

}  // namespace h5feed
