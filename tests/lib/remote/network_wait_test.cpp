#include "remote/network_wait.h"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

namespace h5feed::remote {
namespace {

using std::chrono::milliseconds;

TEST_CASE("threads are counted as waiting on the network while they hold a NetworkWait") {
  const int before = ThreadsWaitingOnNetwork();
  {
    const NetworkWait first;
    CHECK(ThreadsWaitingOnNetwork() == before + 1);
    std::thread([&] {
      const NetworkWait second;
      CHECK(ThreadsWaitingOnNetwork() == before + 2);
    }).join();
    CHECK(ThreadsWaitingOnNetwork() == before + 1);
  }
  CHECK(ThreadsWaitingOnNetwork() == before);
}

TEST_CASE("the heartbeat beats while a thread waits on the network, and only then") {
  std::atomic<int> beats{0};
  NetworkWaitHeartbeat heartbeat([&beats] { ++beats; }, milliseconds(5));
  std::this_thread::sleep_for(milliseconds(60));
  CHECK(beats == 0);
  {
    const NetworkWait waiting;
    std::this_thread::sleep_for(milliseconds(60));
  }
  const int while_waiting = beats;
  CHECK(while_waiting >= 2);
  std::this_thread::sleep_for(milliseconds(60));
  CHECK(beats <= while_waiting + 1);  // one may have been under way as the wait ended
}

TEST_CASE("a heartbeat destroyed while a thread waits stops beating at once") {
  std::atomic<int> beats{0};
  const NetworkWait waiting;
  std::optional<NetworkWaitHeartbeat> heartbeat;
  heartbeat.emplace([&beats] { ++beats; }, milliseconds(1000));
  const auto start = std::chrono::steady_clock::now();
  heartbeat.reset();
  CHECK(std::chrono::steady_clock::now() - start < milliseconds(500));
  CHECK(beats == 0);
}

}  // namespace
}  // namespace h5feed::remote
