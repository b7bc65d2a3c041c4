// RunWatchedProgram (watched_program.h).

#include "process/watched_program.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "h5feed/error.h"
#include "process/child_watch.h"

extern char** environ;

namespace h5feed::process {
namespace {

// posix_spawn's attributes and file actions, destroyed on every path out.
class SpawnSetup {
 public:
  SpawnSetup() {
    posix_spawnattr_init(&attributes_);
    posix_spawn_file_actions_init(&actions_);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions_);
    posix_spawnattr_destroy(&attributes_);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;

  // A trainer may block or ignore signals (SIGINT, SIGPIPE, a thread's mask); the program
  // must crash on SIGSEGV as any program does for the crash to be seen.
  void ResetSignals() {
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes_, &none);
    posix_spawnattr_setsigdefault(&attributes_, &all);
    posix_spawnattr_setflags(&attributes_, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  }

  void Redirect(int stderr_fd) {
    posix_spawn_file_actions_addopen(&actions_, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions_, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions_, stderr_fd, STDERR_FILENO);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    // Descriptors the caller opened without O_CLOEXEC (a training script's pipes) stay out
    // of the program: nothing waits on a pipe end it holds.
    posix_spawn_file_actions_addclosefrom_np(&actions_, STDERR_FILENO + 1);
#endif
  }

  const posix_spawnattr_t* attributes() const { return &attributes_; }
  const posix_spawn_file_actions_t* actions() const { return &actions_; }

 private:
  posix_spawnattr_t attributes_;
  posix_spawn_file_actions_t actions_;
};

}  // namespace

ProgramRun RunWatchedProgram(const std::vector<std::string>& argv, std::chrono::milliseconds stall,
                             const std::atomic<bool>* cancel) {
  ProgramRun run;
  if (argv.empty()) {
    run.start_error = "no program given";
    return run;
  }
  int pipe_ends[2];
  // O_CLOEXEC: the write end reaches the program only through the dup2 below, never another
  // program a second thread starts meanwhile.
  if (::pipe2(pipe_ends, O_CLOEXEC) != 0) ThrowCallFailed("pipe2");
  std::vector<std::string> arguments = argv;
  std::vector<char*> pointers;
  for (std::string& argument : arguments) pointers.push_back(argument.data());
  pointers.push_back(nullptr);
  SpawnSetup setup;
  setup.ResetSignals();
  setup.Redirect(pipe_ends[1]);
  pid_t child = 0;
  const int failed = ::posix_spawn(&child, pointers[0], setup.actions(), setup.attributes(),
                                   pointers.data(), environ);
  ::close(pipe_ends[1]);
  if (failed != 0) {
    ::close(pipe_ends[0]);
    run.start_error = std::strerror(failed);
    return run;
  }
  run.started = true;
  run.end = WatchChild(child, pipe_ends[0], stall, /*keep_output=*/true, cancel);
  return run;
}

}  // namespace h5feed::process
