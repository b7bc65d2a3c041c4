#include "isolated_run.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <string>

#include "h5feed/error.h"
#include "process/child_watch.h"

namespace h5feed::cli {
namespace {

// The child: runs the body, beating on `beats`, and leaves with its code without running the
// parent's exit handlers twice (after flushing what it printed).
[[noreturn]] void RunChild(const std::function<int(const Heartbeat&)>& body, int beats) {
  std::atomic<std::chrono::steady_clock::time_point> last(std::chrono::steady_clock::now() -
                                                          std::chrono::seconds(1));
  const Heartbeat heartbeat = [&] {
    const auto now = std::chrono::steady_clock::now();
    if (now - last.load() < std::chrono::milliseconds(100)) return;
    last.store(now);
    const char beat = 1;
    [[maybe_unused]] ssize_t written = ::write(beats, &beat, 1);  // a full pipe: beat dropped
  };
  int code = 1;
  try {
    heartbeat();
    code = body(heartbeat);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
  }
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  ::_exit(code);
}

}  // namespace

IsolatedResult RunIsolated(const std::function<int(const Heartbeat& heartbeat)>& body,
                           std::chrono::milliseconds stall) {
  int pipe_ends[2];
  if (::pipe2(pipe_ends, O_CLOEXEC | O_NONBLOCK) != 0) process::ThrowCallFailed("pipe2");
  std::cout.flush();
  std::cerr.flush();
  const pid_t child = ::fork();
  if (child < 0) process::ThrowCallFailed("fork");
  if (child == 0) {
    ::close(pipe_ends[0]);
    RunChild(body, pipe_ends[1]);
  }
  ::close(pipe_ends[1]);
  // Beats are progress; the pipe's end (or the child's exit) is the end.
  const process::ChildEnd end =
      process::WatchChild(child, pipe_ends[0], stall, /*keep_output=*/false);
  IsolatedResult result;
  switch (end.how) {
    case process::ChildEnd::How::kExited: result.exit_code = end.exit_code; break;
    case process::ChildEnd::How::kSignaled:
      result.outcome = IsolatedResult::Outcome::kCrashed;
      result.signal = end.signal;
      break;
    case process::ChildEnd::How::kStalled:
      result.outcome = IsolatedResult::Outcome::kStalled;
      result.signal = SIGKILL;
      break;
    case process::ChildEnd::How::kLost:
      throw Error(ErrorCode::kInternal, "the checking process's exit status was lost (ECHILD)");
    case process::ChildEnd::How::kCancelled:  // no cancel flag is given: never
      throw Error(ErrorCode::kInternal, "the checking process was cancelled");
  }
  return result;
}

}  // namespace h5feed::cli
