// ProbeOpen (open_probe.h): runs h5feed-open-probe and judges how it ended.

#include "probe/open_probe.h"

#include <unistd.h>

#include <csignal>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#include "h5feed/error.h"
#include "make_error.h"
#include "probe/open_probe_protocol.h"
#include "probe/probe_location.h"
#include "process/watched_program.h"

namespace h5feed::probe {
namespace {

std::vector<std::string> Arguments(const std::string& program, const std::string& path,
                                   const ProbeRequest& request) {
  std::vector<std::string> argv = {program,
                                   "--protocol",
                                   kProtocolVersion,
                                   "--what",
                                   request.target == ProbeTarget::kLoader ? "index" : "summary",
                                   "--locking",
                                   std::string(ToString(request.file_locking)),
                                   "--parent",
                                   std::to_string(::getpid())};
  if (!request.images_dataset.empty()) {
    argv.insert(argv.end(), {"--images", request.images_dataset});
  }
  if (!request.labels_dataset.empty()) {
    argv.insert(argv.end(), {"--labels", request.labels_dataset});
  }
  const RemoteOptions& remote = request.remote;
  argv.insert(argv.end(), {"--connections", std::to_string(remote.connections), "--retries",
                           std::to_string(remote.retries), "--connect-timeout",
                           std::to_string(remote.connect_timeout_seconds), "--stall",
                           std::to_string(remote.stall_seconds), "--spill-bytes",
                           std::to_string(remote.spill_bytes)});
  if (!remote.spill_dir.empty()) argv.insert(argv.end(), {"--spill-dir", remote.spill_dir});
  if (!remote.s3_region.empty()) argv.insert(argv.end(), {"--s3-region", remote.s3_region});
  if (!remote.s3_endpoint.empty()) argv.insert(argv.end(), {"--s3-endpoint", remote.s3_endpoint});
  if (remote.option_names) {
    for (const char* field : kNamedRemoteFields) {
      const std::string name = remote.option_names(field);
      if (!name.empty())
        argv.insert(argv.end(), {"--option-name", std::string(field) + "=" + name});
    }
  }
  argv.insert(argv.end(), {"--", path});
  return argv;
}

// The last line the probe wrote that is not empty (an ASan summary, a loader's complaint).
std::string LastLine(const std::string& text) {
  const size_t end = text.find_last_not_of("\r\n ");
  if (end == std::string::npos) return "";
  const size_t start = text.rfind('\n', end);
  const size_t from = start == std::string::npos ? 0 : start + 1;
  return text.substr(from, end - from + 1);
}

std::string SignalName(int signal) {
  const char* abbreviation = sigabbrev_np(signal);
  const char* description = sigdescr_np(signal);
  return std::string(abbreviation ? std::string("SIG") + abbreviation
                                  : "signal " + std::to_string(signal)) +
         (description ? std::string(", ") + description : "");
}

std::string DamagedAdvice(const std::string& path) {
  return ". The file is damaged (or made to break HDF5): run `h5feed verify " + path +
         "` for a report, then restore or re-convert it (this happened in h5feed's open probe, "
         "a separate process, so this one goes on; docs/reliability.md, \"Open probe\")";
}

bool Interrupts(int signal) {
  return signal == SIGINT || signal == SIGTERM || signal == SIGHUP || signal == SIGQUIT;
}

static_assert(static_cast<int>(ErrorCode::kInternal) + 1 == kErrorCodeCount,
              "open_probe_protocol.h: kErrorCodeCount counts ErrorCode's values");

// The Error the probe ended with (open_probe_protocol.h), or nullopt when its exit code is
// not one, or the message was cut from the output kept.
std::optional<Error> ProbeError(const process::ChildEnd& end) {
  const bool missing_input = end.exit_code == kExitMissingInput;
  const int code = end.exit_code - kExitErrorCodeBase;
  if (!missing_input && (code < 0 || code >= kErrorCodeCount)) return std::nullopt;
  const std::string_view marker = kErrorMarker;
  const size_t at = end.output_tail.rfind(marker);
  if (at == std::string::npos) return std::nullopt;
  std::string message = end.output_tail.substr(at + marker.size());
  while (!message.empty() && (message.back() == '\n' || message.back() == '\r')) {
    message.pop_back();
  }
  if (missing_input) return Error::MissingInput(message);
  return Error(static_cast<ErrorCode>(code), message);
}

std::string Unprotected(const std::string& path) {
  return "; opened " + path +
         " in this process, unprotected from HDF5 1.10.8's crashes and "
         "hangs on damaged files (turn the open probe off to silence this)";
}

}  // namespace

void ProbeOpen(const std::string& path, const ProbeRequest& request, const Warn& warn) {
  const ProbeLocation location = FindOpenProbe();
  if (location.path.empty()) {
    warn(std::string("the open probe (h5feed-open-probe) was not found (looked: ") +
         location.looked + "); set $" + kProgramVariable + " to its path" + Unprotected(path));
    return;
  }
  const process::ProgramRun run = process::RunWatchedProgram(
      Arguments(location.path, path, request), std::chrono::milliseconds(request.stall),
      request.remote.cancel.get());
  if (!run.started) {
    warn("the open probe " + location.path + " could not be started (" + run.start_error + ")" +
         Unprotected(path));
    return;
  }
  const process::ChildEnd& end = run.end;
  const std::string said = LastLine(end.output_tail);
  switch (end.how) {
    case process::ChildEnd::How::kExited:
      if (end.exit_code == kExitOpened || end.exit_code == kExitError) return;
      if (std::optional<Error> refused = ProbeError(end)) throw *refused;
      if (end.exit_code == kExitUsage || end.exit_code == 126 || end.exit_code == 127) {
        warn("the open probe " + location.path + " could not run (exit code " +
             std::to_string(end.exit_code) + (said.empty() ? "" : ": " + said) +
             "; another h5feed version, or a missing library?)" + Unprotected(path));
        return;
      }
      throw MakeError(
          ErrorCode::kCorrupt,
          "{}: HDF5 ended abnormally (exit code {}{}) while opening the file's structure{}", path,
          end.exit_code, (said.empty() ? "" : ": " + said), DamagedAdvice(path));
    case process::ChildEnd::How::kSignaled:
      if (Interrupts(end.signal)) {
        throw MakeError(ErrorCode::kCancelled, "opening {} was interrupted ({})", path,
                        SignalName(end.signal));
      }
      if (end.signal == SIGKILL) {  // not sent here: out of memory, or someone else
        warn(
            "the open probe was killed (SIGKILL: out of memory, or another process) before "
            "it finished" +
            Unprotected(path));
        return;
      }
      throw MakeError(ErrorCode::kCorrupt,
                      "{}: HDF5 crashed ({}) while opening the file's structure{}", path,
                      SignalName(end.signal), DamagedAdvice(path));
    case process::ChildEnd::How::kCancelled:  // the caller's Ctrl-C, which the probe did not get
      throw MakeError(ErrorCode::kCancelled, "opening {} was cancelled", path);
    case process::ChildEnd::How::kStalled:
      throw MakeError(
          ErrorCode::kCorrupt,
          "{}: HDF5 made no progress for {} s while opening the file's structure, so the open was "
          "given up (HDF5 1.10.8 spins forever on some damaged structures, such as a damaged "
          "global heap; on a very slow file system, raise the open probe's stall limit, "
          "open_probe_stall_seconds){}",
          path, request.stall.count(), DamagedAdvice(path));
    case process::ChildEnd::How::kLost:
      warn(
          "the open probe's exit status was taken by another part of this process (SIGCHLD "
          "ignored?)" +
          Unprotected(path));
      return;
  }
}

}  // namespace h5feed::probe
