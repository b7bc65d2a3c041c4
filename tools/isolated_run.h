#pragma once
// Runs work in a child process so that a crash or a hang inside a library it calls ends the
// child, not the command. Why: HDF5 1.10.8 (Debian's) crashes or spins forever on some hostile
// files while parsing their structure (docs/fuzzing.md, "Findings in HDF5 itself"), and h5feed
// cannot interrupt a call into HDF5; `h5feed verify` must still say "damaged" and exit.
//
// Call it before the process starts threads (fork copies only the calling thread). The child
// shares stdout and stderr, so what it prints appears as it would have. The waiting is
// process/child_watch.h's, shared with the Loader's open probe (which spawns a program instead:
// a library's caller may have threads).

#include <chrono>
#include <functional>

namespace h5feed::cli {

struct IsolatedResult {
  enum class Outcome {
    kExited,   // the child returned exit_code
    kCrashed,  // a signal ended it (signal)
    kStalled,  // it called no heartbeat for `stall` and was killed
  };
  Outcome outcome = Outcome::kExited;
  int exit_code = 0;
  int signal = 0;
};

// Runs body(heartbeat) in a forked child and waits for it. The body calls heartbeat() whenever
// it makes progress, from any of its threads (cheap: at most one write to a pipe every 100 ms,
// give or take a beat between threads); a child that calls none
// for `stall` is killed with SIGKILL. Throws Error(kInternal) when fork or pipe fail.
using Heartbeat = std::function<void()>;
IsolatedResult RunIsolated(const std::function<int(const Heartbeat& heartbeat)>& body,
                           std::chrono::milliseconds stall);

}  // namespace h5feed::cli
