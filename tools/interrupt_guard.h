#pragma once
// Turns Ctrl-C (SIGINT), SIGTERM and SIGHUP into a cancel flag for long work, so the work can
// stop at a safe point and remove its temporary file. A second signal is not caught: it
// stops the process at once (leaving at most a ".partial" file, never a valid-looking one).
// One guard at a time; it restores the previous handlers when destroyed.

#include <atomic>
#include <csignal>

namespace h5feed::cli {

class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  const std::atomic<bool>& flag() const;
  // The signal received, or 0.
  int signal_number() const;
  // The conventional exit status for the signal received: 128 + its number.
  int exit_code() const { return 128 + signal_number(); }

 private:
  struct sigaction previous_[3];
};

}  // namespace h5feed::cli
