// process/watched_program.h (and child_watch.h under it) with real programs: an exit code and
// what the program wrote come back, a crash and a stall are told apart, a program that keeps
// writing is never stopped, one whose caller cancels is killed, and one that cannot be started
// says so.

#include "process/watched_program.h"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

namespace h5feed::process {
namespace {

using namespace std::chrono_literals;
using How = ChildEnd::How;

ProgramRun Shell(const std::string& script, std::chrono::milliseconds stall = 10s) {
  return RunWatchedProgram({"/bin/sh", "-c", script}, stall);
}

TEST_CASE("the program's exit code and the end of what it wrote to stderr come back") {
  const ProgramRun run = Shell("echo to-stdout; echo first >&2; echo last >&2; exit 3");
  REQUIRE(run.started);
  CHECK(run.end.how == How::kExited);
  CHECK(run.end.exit_code == 3);
  CHECK(run.end.output_tail == "first\nlast\n");  // stdout goes to /dev/null
}

TEST_CASE("only the last bytes of a long output are kept") {
  const ProgramRun run = Shell(
      "i=0; while [ $i -lt 2000 ]; do echo line-$i >&2; i=$((i+1)); "
      "done");
  REQUIRE(run.started);
  CHECK(run.end.output_tail.size() <= kKeptOutputBytes);
  CHECK(run.end.output_tail.ends_with("line-1999\n"));
}

TEST_CASE("a program ended by a signal is reported with the signal") {
  const ProgramRun run = Shell("kill -SEGV $$");
  REQUIRE(run.started);
  CHECK(run.end.how == How::kSignaled);
  CHECK(run.end.signal == SIGSEGV);
}

TEST_CASE("a silent program is killed after the stall time; one that keeps writing runs on") {
  const auto started = std::chrono::steady_clock::now();
  const ProgramRun silent = Shell("exec sleep 100", 300ms);
  REQUIRE(silent.started);
  CHECK(silent.end.how == How::kStalled);
  CHECK(std::chrono::steady_clock::now() - started < 10s);

  // 1.2 s of work, four times the stall time, writing every 0.1 s.
  const ProgramRun writing = Shell(
      "i=0; while [ $i -lt 12 ]; do echo beat >&2; sleep 0.1; i=$((i+1)); done; exit 7", 300ms);
  REQUIRE(writing.started);
  CHECK(writing.end.how == How::kExited);
  CHECK(writing.end.exit_code == 7);
}

TEST_CASE("a program still running when the cancel flag is set is killed at once") {
  std::atomic<bool> cancel{false};
  std::thread canceller([&cancel] {
    std::this_thread::sleep_for(200ms);
    cancel.store(true);
  });
  const auto started = std::chrono::steady_clock::now();
  const ProgramRun run = RunWatchedProgram({"/bin/sh", "-c", "exec sleep 100"}, 60s, &cancel);
  const auto took = std::chrono::steady_clock::now() - started;
  canceller.join();
  REQUIRE(run.started);
  CHECK(run.end.how == How::kCancelled);
  CHECK(run.end.signal == SIGKILL);
  CHECK(took < 5s);  // the flag, not the stall limit (60 s) or the program (100 s)
  // A flag that stays clear changes nothing.
  std::atomic<bool> clear{false};
  const ProgramRun done = RunWatchedProgram({"/bin/sh", "-c", "exit 5"}, 60s, &clear);
  CHECK(done.end.how == How::kExited);
  CHECK(done.end.exit_code == 5);
}

TEST_CASE("a program that does not exist is not started, and says why") {
  const ProgramRun run = RunWatchedProgram({"/nonexistent/h5feed-open-probe"}, 10s);
  CHECK_FALSE(run.started);
  CHECK(run.start_error.find("No such file") != std::string::npos);
}

TEST_CASE("programs run from several threads at once each come back with their own end") {
  std::vector<std::thread> threads;
  std::vector<int> codes(6, -1);
  for (int i = 0; i < 6; ++i) {
    threads.emplace_back([&codes, i] {
      codes[i] = Shell("sleep 0.1; exit " + std::to_string(10 + i)).end.exit_code;
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int i = 0; i < 6; ++i) CHECK(codes[i] == 10 + i);
}

}  // namespace
}  // namespace h5feed::process
