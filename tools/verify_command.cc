// `h5feed verify FILE.h5 [--json]`: checks a whole file (h5feed/verify.h) and says whether it
// is sound. Exit 0: sound; 4 (kExitDamaged): damaged, every bad chunk and image listed; 1: it
// could not be judged (unreadable, not an HDF5 file at all, an HDF5 file without images, a
// newer format), with the message inspect or the Loader gives for it; 2: a wrong command
// line, a FILE that does not exist among them.
//
// The checking runs in a child process (isolated_run.h): HDF5 1.10.8 crashes or spins forever
// on some damaged structures, and verify is the command people run on exactly those files, so
// a crash or a stall there is reported as damage instead of taking verify down with it.

#include <CLI/CLI.hpp>
#include <chrono>
#include <csignal>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>

#include "command_error.h"
#include "commands.h"
#include "exit_codes.h"
#include "file_locking_option.h"
#include "h5feed/error.h"
#include "h5feed/verify.h"
#include "input_paths.h"
#include "isolated_run.h"
#include "number_checks.h"
#include "progress_bar.h"
#include "remote/network_wait.h"
#include "remote_options_flags.h"
#include "reports/error_report.h"
#include "reports/report_json.h"
#include "reports/verification_report.h"

namespace h5feed::cli {
namespace {

struct VerifyFlags {
  std::string path;
  bool json = false;
  bool quiet = false;
  int threads = 0;
  FileLocking locking = FileLocking::kAuto;
  int stall_seconds = 120;  // no progress for this long: HDF5 is stuck on the file
  RemoteOptions remote;     // for a remote path
  std::string images;       // the image dataset of a foreign file that holds several
};

// With --json, the object a script reads on stdout when there is no report (error_report.h),
// with "ok": false as a report of a file that is not sound has it.
void WriteJsonError(const VerifyFlags& flags, const std::exception& error) {
  ReportValue::Object value = reports::ErrorValue(flags.path, error);
  value.insert(value.begin() + 1, {"ok", false});
  std::cout << reports::ToJson(value) << std::flush;
}

int VerifyInThisProcess(const VerifyFlags& flags, const Heartbeat& heartbeat) {
  VerifyOptions options;
  options.threads = flags.threads;
  options.file_locking = flags.locking;
  options.remote = flags.remote;
  options.images_dataset = flags.images;
  // Waiting for a remote file's server is not HDF5 stuck on the file: the remote options bound
  // each request, and a stalling server must end as they say (retried, or an error), not as
  // a file called damaged.
  const remote::NetworkWaitHeartbeat waiting_for_server(heartbeat, std::chrono::milliseconds(250));
  std::unique_ptr<ProgressBar> bar;  // made at the first chunk, when the count is known
  const bool draw = !flags.quiet && ProgressBar::StderrIsTerminal();
  options.on_progress = [&](int64_t done, int64_t total) {
    heartbeat();
    if (!bar) bar = std::make_unique<ProgressBar>("verifying", "chunks", total, draw);
    bar->Update(done, 0);
  };
  try {
    const VerificationReport report = VerifyFile(flags.path, options);
    if (bar) bar->Finish();
    const ReportValue value = VerificationValue(report);
    std::cout << (flags.json ? reports::ToJson(value) : reports::VerificationText(value))
              << std::flush;
    return report.ok() ? kExitOk : kExitDamaged;
  } catch (const std::exception& e) {  // Error, or a bug / out of memory: one line, no abort
    if (bar) bar->Finish();
    if (flags.json) WriteJsonError(flags, e);
    return ReportInputError("verify", e);
  }
}

int RunVerify(const VerifyFlags& flags) {
  // Checked here, not while parsing, so that --json gets its error object too.
  if (const std::string problem = InputProblem(flags.path, InputKind::kFileOrUrl);
      !problem.empty()) {
    if (flags.json) WriteJsonError(flags, Error(ErrorCode::kNotFound, problem));
    return ReportUsageError("verify", problem);
  }
  const IsolatedResult result =
      RunIsolated([&](const Heartbeat& heartbeat) { return VerifyInThisProcess(flags, heartbeat); },
                  std::chrono::seconds(flags.stall_seconds));
  using Outcome = IsolatedResult::Outcome;
  if (result.outcome == Outcome::kExited) return result.exit_code;
  // The child printed nothing on stdout: it was stopped, killed or crashed.
  const auto damaged = [&flags](const std::string& why) {
    const std::string message = flags.path + ": DAMAGED: " + why;
    if (flags.json) WriteJsonError(flags, Error(ErrorCode::kCorrupt, message));
    std::cerr << "h5feed verify: " << message << "\n";
    return kExitDamaged;
  };
  if (result.outcome == Outcome::kStalled) {
    return damaged("reading it made no progress for " + std::to_string(flags.stall_seconds) +
                   " s, so the reader was stopped (HDF5 1.10.8 spins forever on some damaged "
                   "structures, such as a damaged global heap; a very slow disk can do this "
                   "too: raise --stall-seconds)");
  }
  const int signal = result.signal;
  if (signal == SIGKILL) {  // not a fault of the file: the system (out of memory?) or a user
    const Error killed(ErrorCode::kInternal,
                       flags.path +
                           ": the checking process was killed (SIGKILL; out of memory?) "
                           "before it finished; the file was not judged");
    if (flags.json) WriteJsonError(flags, killed);
    return ReportError("verify", killed);
  }
  return damaged("reading it crashed the checking process (signal " + std::to_string(signal) +
                 ", " + strsignal(signal) +
                 "): HDF5 1.10.8 fails this way on some damaged "
                 "structures");
}

}  // namespace

void AddVerifyCommand(CLI::App& app, Runner& run) {
  auto flags = std::make_shared<VerifyFlags>();
  CLI::App* command = app.add_subcommand(
      "verify",
      "Check a whole file: every chunk read, decoded and (h5feed files) checked against its "
      "checksum; the stored chunk table against HDF5's own; the format attributes; labels "
      "against the classes; classes, sources and skipped lists against the counts. Lists every "
      "bad chunk with its rows, and every bad image by row. Files of images at their own size "
      "also have every JPEG image decoded whole (its header against the file's table). "
      "Exit 0: all is well; 4: damaged; 1: could not be checked. "
      "h5py-made files are decoded too, and the report says what they lack (checksums)");
  command
      ->add_option("FILE", flags->path,
                   "The HDF5 file to verify: a path, or an http(s):// or s3:// URL")
      ->required();
  command->add_flag("--json", flags->json,
                    "Print one JSON object with every field (for scripts) instead of text");
  command->add_option("--threads", flags->threads, "Worker threads (0 = all cores)")
      ->check(WholeInRange(0, 1024))
      ->capture_default_str();
  command->add_option("--images", flags->images,
                      "The image dataset of a file that holds several (default: 'images', else "
                      "the only 4-D uint8 dataset, else the only 3-D one), as the Loader's "
                      "images_dataset names it");
  AddFileLockingOption(*command, flags->locking);
  command
      ->add_option("--stall-seconds", flags->stall_seconds,
                   "Report the file as damaged when reading it makes no progress for this "
                   "long (HDF5 hangs on some damaged structures)")
      ->check(WholeInRange(1, 86400))
      ->capture_default_str();
  command->add_flag("--quiet,-q", flags->quiet, "No progress bar");
  AddRemoteOptions(*command, flags->remote);
  command->callback([flags, &run] { run = [flags] { return RunVerify(*flags); }; });
}

}  // namespace h5feed::cli
