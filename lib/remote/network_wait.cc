// NetworkWait and NetworkWaitHeartbeat (network_wait.h).
#include "remote/network_wait.h"

#include <atomic>
#include <utility>

namespace h5feed::remote {
namespace {

std::atomic<int> waiting_threads{0};

}  // namespace

int ThreadsWaitingOnNetwork() { return waiting_threads.load(std::memory_order_relaxed); }

NetworkWait::NetworkWait() { waiting_threads.fetch_add(1, std::memory_order_relaxed); }

NetworkWait::~NetworkWait() { waiting_threads.fetch_sub(1, std::memory_order_relaxed); }

NetworkWaitHeartbeat::NetworkWaitHeartbeat(std::function<void()> beat,
                                           std::chrono::milliseconds interval) {
  thread_ = std::thread([this, beat = std::move(beat), interval] {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stop_cv_.wait_for(lock, interval, [this] { return stop_; })) {
      if (ThreadsWaitingOnNetwork() > 0) beat();
    }
  });
}

NetworkWaitHeartbeat::~NetworkWaitHeartbeat() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  thread_.join();
}

}  // namespace h5feed::remote
