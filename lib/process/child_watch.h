#pragma once
// Waits for a child process that may crash or hang, and says how it ended. Why: HDF5 1.10.8
// (Debian's) crashes or spins forever on some hostile files while parsing their structure
// (docs/fuzzing.md, "Findings in HDF5 itself"), and a call into HDF5 cannot be interrupted;
// only a separate process can be given up on. `h5feed verify` forks its checking child
// (tools/isolated_run.h); the Loader spawns the open probe (open_probe.h). Both watch the
// child here.
//
// Thread-safety: safe to call from many threads at once, each for its own child. It reaps only
// `child` (never waitpid(-1)), so it does not steal other children of the process.

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <string>

namespace h5feed::process {

struct ChildEnd {
  enum class How {
    kExited,     // it returned exit_code
    kSignaled,   // a signal ended it (signal); not one sent here
    kStalled,    // it wrote nothing for the stall time and was killed here (SIGKILL)
    kCancelled,  // the caller's cancel flag was set, and it was killed here (SIGKILL)
    kLost,       // its status could not be had (SIGCHLD ignored, or reaped elsewhere: ECHILD)
  };
  How how = How::kExited;
  int exit_code = 0;
  int signal = 0;
  // The last bytes it wrote to `output` (at most kKeptOutputBytes), when asked for.
  std::string output_tail;
};

inline constexpr size_t kKeptOutputBytes = 4096;

// Watches `child` through `output`, the read end of a pipe whose write end the child holds
// (and the caller has closed): bytes arriving are progress; the child is done when it has
// exited. A child that writes nothing for `stall` is killed with SIGKILL and reaped. Bytes
// are kept in output_tail when keep_output. A child still running once `cancel` (when given)
// is true is killed with SIGKILL and reaped within about 0.1 s: how a caller stopped by Ctrl-C
// that reached it alone (not the child's process group) stops the child too. Closes `output`.
// Throws Error(kInternal) when poll or waitpid fail for another reason than an interruption or
// ECHILD.
//
// The end is noticed by waitpid, not only by the pipe's end of file: a process forked (not
// exec'd) by another thread meanwhile holds a copy of the write end and would delay that.
ChildEnd WatchChild(pid_t child, int output, std::chrono::milliseconds stall, bool keep_output,
                    const std::atomic<bool>* cancel = nullptr);

// Throws Error(kInternal) "<what> failed: <errno text>" for a call made while starting or
// watching a child (pipe2, fork, poll, waitpid) that failed with errno set: nothing the user
// did.
[[noreturn]] void ThrowCallFailed(const char* what);

}  // namespace h5feed::process
