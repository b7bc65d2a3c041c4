#include "isolated_run.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "h5feed/error.h"

namespace h5feed::cli {
namespace {

[[noreturn]] void SystemError(const char* what) {
  throw Error(ErrorCode::kInternal, std::string(what) + " failed: " + std::strerror(errno));
}

// The child: runs the body, beating on `beats`, and leaves with its code without running the
// parent's exit handlers twice (after flushing what it printed).
[[noreturn]] void RunChild(const std::function<int(const Heartbeat&)>& body, int beats) {
  auto last = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  const Heartbeat heartbeat = [&] {
    const auto now = std::chrono::steady_clock::now();
    if (now - last < std::chrono::milliseconds(100)) return;
    last = now;
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

IsolatedResult Reap(pid_t child, IsolatedResult::Outcome stalled_or_not) {
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) SystemError("waitpid");
  }
  IsolatedResult result;
  if (stalled_or_not == IsolatedResult::Outcome::kStalled) {
    result.outcome = IsolatedResult::Outcome::kStalled;
    result.signal = SIGKILL;
  } else if (WIFSIGNALED(status)) {
    result.outcome = IsolatedResult::Outcome::kCrashed;
    result.signal = WTERMSIG(status);
  } else {
    result.exit_code = WEXITSTATUS(status);
  }
  return result;
}

}  // namespace

IsolatedResult RunIsolated(const std::function<int(const Heartbeat& heartbeat)>& body,
                           std::chrono::milliseconds stall) {
  int pipe_ends[2];
  if (::pipe2(pipe_ends, O_CLOEXEC | O_NONBLOCK) != 0) SystemError("pipe2");
  std::cout.flush();
  std::cerr.flush();
  const pid_t child = ::fork();
  if (child < 0) SystemError("fork");
  if (child == 0) {
    ::close(pipe_ends[0]);
    RunChild(body, pipe_ends[1]);
  }
  ::close(pipe_ends[1]);
  const int beats = pipe_ends[0];
  // Waits for beats until the child closes its end (it exited or crashed) or stays silent.
  while (true) {
    pollfd wait_for = {beats, POLLIN, 0};
    const int ready = ::poll(&wait_for, 1, static_cast<int>(stall.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) SystemError("poll");
    if (ready == 0) {
      ::kill(child, SIGKILL);
      ::close(beats);
      return Reap(child, IsolatedResult::Outcome::kStalled);
    }
    char drained[64];
    const ssize_t got = ::read(beats, drained, sizeof drained);
    if (got == 0) break;  // every write end closed: the child is gone
  }
  ::close(beats);
  return Reap(child, IsolatedResult::Outcome::kExited);
}

}  // namespace h5feed::cli
