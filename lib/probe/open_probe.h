#pragma once
// The isolated pre-open probe. HDF5 1.10.8 (Debian's) crashes (SIGSEGV, heap overflows) or
// spins forever on some hostile files while parsing their structure (docs/fuzzing.md,
// "Findings in HDF5 itself"); a call into HDF5 cannot be interrupted, and a crash takes the
// whole process with it: a trainer, a Python interpreter. So before an in-process open, the
// same HDF5 open is done by a separate program (h5feed-open-probe, open_probe_main.cc, found
// by probe_location.h), started with posix_spawn and watched (process/watched_program.h). When HDF5
// crashes or hangs there, the caller gets an Error instead of the crash or the hang.
//
// Cost: one process start plus the open done twice (measured in docs/reliability.md, "Open
// probe"; bench/open_bench --probe).
//
// Thread-safety: safe to call from many threads at once; holds no lock while it waits.

#include <chrono>
#include <functional>
#include <string>

#include "h5feed/file_locking.h"
#include "h5feed/remote_options.h"

namespace h5feed::probe {

// Which open the probe repeats: the Loader's (the dataset index, and the chunk reader, which
// opens a foreign file's image dataset again) or `h5feed inspect`'s (inspect/file_summary.h).
enum class ProbeTarget { kLoader, kSummary };

struct ProbeRequest {
  ProbeTarget target = ProbeTarget::kLoader;
  // kLoader: as the Loader opens (LoaderOptions' fields of the same names).
  std::string images_dataset;
  std::string labels_dataset;
  FileLocking file_locking = FileLocking::kAuto;
  // An open that has not finished after this long is taken for HDF5 spinning. Opening reads
  // metadata only, in milliseconds on a local disk (docs/reliability.md, "Open probe"); the
  // limit leaves room for a slow network file system.
  std::chrono::seconds stall{60};
  // For a remote path: as the caller reads it (its spill folder too). Its cancel flag, for a
  // local path too, stops the probe (killed, within about 0.1 s) once set: Ctrl-C sent to the
  // caller alone (kill -INT PID, not the process group) never reaches the probe, whose open
  // would otherwise be waited for, up to `stall` on a file HDF5 spins on.
  RemoteOptions remote;
};

using Warn = std::function<void(const std::string&)>;

// Runs the probe on `path`. Returns when the caller may go on with its in-process open:
//  - the probe opened the file;
//  - the probe failed with something other than an h5feed::Error (out of memory): the
//    in-process open says what it says;
//  - the probe could not be run or judged (not found, not startable, another protocol, killed
//    from outside with SIGKILL, its status lost): `warn` is called once with the reason and
//    that the file is opened unprotected.
// Throws the probe's own Error, code and message, when it refused the file with one (missing,
// not HDF5, a bad table, a refused connection after the retries of request.remote): the
// in-process open would throw the same, after as many retries again. Throws Error(kCorrupt)
// naming the file when HDF5 crashed in the probe (a signal, or a sanitizer's exit) or made no
// progress for `stall`, saying what to do (h5feed verify); Error(kCancelled) when the probe
// was interrupted (SIGINT, SIGTERM, SIGHUP, SIGQUIT: Ctrl-C reaches it as it reaches the
// caller), or once request.remote.cancel is set (the probe killed).
void ProbeOpen(const std::string& path, const ProbeRequest& request, const Warn& warn);

}  // namespace h5feed::probe
