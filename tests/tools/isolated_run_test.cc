// tools/isolated_run.h with real child processes: an exit code comes back, a crash and a stall
// end the child and are told apart, and a child that keeps beating is never stopped.

#include "isolated_run.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>

namespace h5feed::cli {
namespace {

using namespace std::chrono_literals;
using Outcome = IsolatedResult::Outcome;

TEST_CASE("the child's exit code comes back") {
  const IsolatedResult result = RunIsolated([](const Heartbeat&) { return 3; }, 10s);
  CHECK(result.outcome == Outcome::kExited);
  CHECK(result.exit_code == 3);
}

TEST_CASE("a child ended by a signal is reported as crashed, with the signal") {
  // SIGABRT: what an assertion or a sanitizer's report ends a process with, and a signal the
  // sanitizers leave alone (a SIGSEGV under ASan turns into SIGABRT after its report).
  const IsolatedResult result = RunIsolated([](const Heartbeat&) -> int { std::abort(); }, 10s);
  CHECK(result.outcome == Outcome::kCrashed);
  CHECK(result.signal == SIGABRT);
}

TEST_CASE("a silent child is stopped after the stall time; a beating one runs to its end") {
  const auto started = std::chrono::steady_clock::now();
  const IsolatedResult silent = RunIsolated(
      [](const Heartbeat&) {
        ::pause();  // waits forever, like HDF5 spinning on a damaged heap
        return 0;
      },
      300ms);
  CHECK(silent.outcome == Outcome::kStalled);
  CHECK(std::chrono::steady_clock::now() - started < 10s);

  const IsolatedResult beating = RunIsolated(
      [](const Heartbeat& heartbeat) {
        for (int i = 0; i < 12; ++i) {  // 1.2 s of work, four times the stall time
          std::this_thread::sleep_for(100ms);
          heartbeat();
        }
        return 7;
      },
      300ms);
  CHECK(beating.outcome == Outcome::kExited);
  CHECK(beating.exit_code == 7);
}

}  // namespace
}  // namespace h5feed::cli
