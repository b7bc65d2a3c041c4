// WatchChild (child_watch.h).

#include "process/child_watch.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <thread>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::process {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// 100 ms: how late a child's end is noticed when its pipe stays open elsewhere (see the
// header), and how often a quiet child is checked; an ended child whose pipe closed wakes the
// poll at once.
constexpr milliseconds kSlice{100};

class OutputReader {
 public:
  OutputReader(int fd, bool keep) : fd_(fd), keep_(keep) {
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK);
  }
  ~OutputReader() { ::close(fd_); }

  bool open() const { return open_; }
  int fd() const { return fd_; }

  // Reads what is there without waiting; true when anything came (progress).
  bool Drain(std::string& tail) {
    bool got_any = false;
    char buffer[4096];
    while (open_) {
      const ssize_t got = ::read(fd_, buffer, sizeof buffer);
      if (got > 0) {
        got_any = true;
        if (keep_) {
          tail.append(buffer, static_cast<size_t>(got));
          if (tail.size() > 2 * kKeptOutputBytes) tail.erase(0, tail.size() - kKeptOutputBytes);
        }
      } else if (got == 0) {
        open_ = false;  // every write end is closed
      } else if (errno == EINTR) {
        continue;
      } else {
        break;  // EAGAIN: nothing more for now
      }
    }
    return got_any;
  }

 private:
  int fd_;
  bool keep_;
  bool open_ = true;
};

// waitpid without WNOHANG, for a child that was killed here.
void ReapKilled(pid_t child) {
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {}
}

}  // namespace

ChildEnd WatchChild(pid_t child, int output, milliseconds stall, bool keep_output,
                    const std::atomic<bool>* cancel) {
  OutputReader reader(output, keep_output);
  ChildEnd end;
  auto last_progress = Clock::now();
  milliseconds nap{1};  // once the pipe is closed: a child that is leaving, checked often
  while (true) {
    const auto quiet = std::chrono::duration_cast<milliseconds>(Clock::now() - last_progress);
    const bool cancelled = cancel != nullptr && cancel->load();
    if (quiet >= stall || cancelled) {
      ::kill(child, SIGKILL);
      ReapKilled(child);
      reader.Drain(end.output_tail);
      end.how = cancelled ? ChildEnd::How::kCancelled : ChildEnd::How::kStalled;
      end.signal = SIGKILL;
      break;
    }
    const milliseconds slice = std::min(kSlice, stall - quiet);
    if (reader.open()) {
      pollfd wait_for = {reader.fd(), POLLIN, 0};
      const int ready = ::poll(&wait_for, 1, static_cast<int>(slice.count()));
      if (ready < 0 && errno != EINTR) ThrowCallFailed("poll");
      if (ready > 0 && reader.Drain(end.output_tail)) last_progress = Clock::now();
    } else {
      std::this_thread::sleep_for(std::min(nap, slice));
      nap = std::min(nap * 2, kSlice);
    }
    int status = 0;
    const pid_t reaped = ::waitpid(child, &status, WNOHANG);
    if (reaped == child) {
      reader.Drain(end.output_tail);
      if (WIFSIGNALED(status)) {
        end.how = ChildEnd::How::kSignaled;
        end.signal = WTERMSIG(status);
      } else {
        end.how = ChildEnd::How::kExited;
        end.exit_code = WEXITSTATUS(status);
      }
      break;
    }
    if (reaped < 0 && errno == ECHILD) {
      end.how = ChildEnd::How::kLost;
      break;
    }
    if (reaped < 0 && errno != EINTR) ThrowCallFailed("waitpid");
  }
  if (end.output_tail.size() > kKeptOutputBytes) {
    end.output_tail.erase(0, end.output_tail.size() - kKeptOutputBytes);
  }
  return end;
}

void ThrowCallFailed(const char* what) {
  throw MakeError(ErrorCode::kInternal, "{} failed: {}", what, std::strerror(errno));
}

}  // namespace h5feed::process
