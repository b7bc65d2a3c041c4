#pragma once
// Runs a program in a new process (posix_spawn) and waits for it with a stall limit
// (child_watch.h): how the Loader runs its open probe. posix_spawn, not fork: the caller may be
// a multithreaded trainer (Python, torch, TBB), where a forked child inherits locks held by
// other threads and may deadlock before it does anything; an exec'd program starts clean.
//
// The program gets the caller's environment, /dev/null as stdin and stdout, and a pipe as
// stderr (kept, up to child_watch.h's kKeptOutputBytes); every other descriptor is closed in
// it. It stays in the caller's process group, so Ctrl-C at a terminal reaches it too. Signal
// dispositions and the signal mask are reset to their defaults in it.
//
// Thread-safety: safe to call from many threads at once.

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "process/child_watch.h"

namespace h5feed::process {

struct ProgramRun {
  bool started = false;  // false: it could not be started (start_error says why)
  std::string start_error;
  ChildEnd end;  // when started
};

// Runs argv[0] (a path; PATH is not searched) with argv; `cancel` (when given) ends it early
// (WatchChild). Throws Error(kInternal) only when the machinery fails (pipe, poll, waitpid); a
// program that cannot be started comes back with started = false.
ProgramRun RunWatchedProgram(const std::vector<std::string>& argv, std::chrono::milliseconds stall,
                             const std::atomic<bool>* cancel = nullptr);

}  // namespace h5feed::process
