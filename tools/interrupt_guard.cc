#include "interrupt_guard.h"

namespace h5feed::cli {
namespace {

constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};

// Only lock-free atomics may be touched from a signal handler.
std::atomic<bool> g_interrupted{false};
std::atomic<int> g_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

void OnSignal(int signal_number) {
  g_signal.store(signal_number);
  g_interrupted.store(true);
}

}  // namespace

InterruptGuard::InterruptGuard() {
  g_interrupted.store(false);
  g_signal.store(0);
  struct sigaction action = {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  // SA_RESETHAND: the first signal asks politely; the second one gets the default action.
  action.sa_flags = SA_RESETHAND;
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &action, &previous_[i]);
}

InterruptGuard::~InterruptGuard() {
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &previous_[i], nullptr);
}

const std::atomic<bool>& InterruptGuard::flag() const { return g_interrupted; }

int InterruptGuard::signal_number() const { return g_signal.load(); }

}  // namespace h5feed::cli
