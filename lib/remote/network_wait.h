#pragma once
// Whether this process is waiting for a server rather than working: how many of its threads
// are blocked in a remote read right now (HttpClient::Wait). A process watched for hangs by
// the silence of its output (the Loader's open probe, probe/open_probe_main.cc) is not hung
// while it waits for a server: each request is bounded by the remote options' own stall limit,
// retries and backoff (h5feed/remote_options.h), and a watchdog that counted that wait as a
// hang would report a stalling server or a slow link as a damaged file.
//
// Thread-safety: every function and class here may be used from any thread.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace h5feed::remote {

// Threads of this process inside a NetworkWait now.
int ThreadsWaitingOnNetwork();

// Counts the calling thread as waiting on the network for its lifetime.
class NetworkWait {
 public:
  NetworkWait();
  ~NetworkWait();
  NetworkWait(const NetworkWait&) = delete;
  NetworkWait& operator=(const NetworkWait&) = delete;
};

// Calls `beat` on a thread of its own every `interval` while any thread of the process waits
// on the network, until destroyed (which returns once the thread has ended: no beat after).
class NetworkWaitHeartbeat {
 public:
  NetworkWaitHeartbeat(std::function<void()> beat, std::chrono::milliseconds interval);
  ~NetworkWaitHeartbeat();
  NetworkWaitHeartbeat(const NetworkWaitHeartbeat&) = delete;
  NetworkWaitHeartbeat& operator=(const NetworkWaitHeartbeat&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable stop_cv_;
  bool stop_ = false;  // guarded by mutex_
  std::thread thread_;
};

}  // namespace h5feed::remote
