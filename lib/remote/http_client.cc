// HttpClient (http_client.h): libcurl's multi interface on a thread of the client's own.
#include "remote/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>

#include "h5feed/error.h"
#include "h5feed/location.h"
#include "make_error.h"
#include "remote/network_wait.h"
#include "remote/transfer.h"

namespace h5feed::remote {
namespace {

using Clock = std::chrono::steady_clock;

// curl_global_init is not thread-safe before libcurl 7.84 and must precede every other call.
void InitCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// 0.1 s, 0.2 s, 0.4 s ... capped at 2 s, each +-25 % so that many readers hit by one outage do
// not come back in step.
std::chrono::milliseconds Backoff(int retry, std::mt19937& random) {
  const double base = std::min(2000.0, 100.0 * static_cast<double>(1 << std::min(retry, 5)));
  std::uniform_real_distribution<double> jitter(0.75, 1.25);
  return std::chrono::milliseconds(static_cast<int64_t>(base * jitter(random)));
}

}  // namespace

struct HttpClient::Impl {
  Impl(std::string url_in, std::string display_in, const RemoteOptions& options_in,
       RequestAuth auth_in, Observer observer_in)
      : url(std::move(url_in)),
        display(std::move(display_in)),
        options(options_in),
        stall_option(NameOption(options.option_names, "RemoteOptions", "stall_seconds")),
        auth(std::move(auth_in)),
        // Only a TLS connection reads the CA variables, so that one left naming a missing
        // file fails no http:// read.
        trust(Location(url).scheme() == Location::Scheme::kHttps ? TlsTrustFromEnvironment()
                                                                 : TlsTrust{}),
        observer(std::move(observer_in)) {
    InitCurlOnce();
    multi = curl_multi_init();
    if (multi == nullptr) throw Error(ErrorCode::kInternal, "curl_multi_init failed");
    const long connections = std::max(1, options.connections);
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, connections);
    curl_multi_setopt(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, connections);
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, connections);
    thread = std::thread([this] { Loop(); });
  }

  ~Impl() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    curl_multi_wakeup(multi);
    thread.join();
    curl_multi_cleanup(multi);
  }

  void Queue(std::shared_ptr<Transfer> transfer) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (stopping || interrupted || Cancelled()) {
        transfer->Complete(std::nullopt,
                           MakeError(ErrorCode::kCancelled, "reading {} was stopped", display));
        return;
      }
      incoming.push_back(std::move(transfer));
    }
    curl_multi_wakeup(multi);
  }

  void Loop() {
    std::mt19937 random(std::random_device{}());
    while (true) {
      std::vector<std::shared_ptr<Transfer>> arrived;
      std::vector<std::shared_ptr<Transfer>> cancelled;
      uint64_t interrupt = 0;
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (stopping) break;
        arrived.swap(incoming);
        cancelled.swap(cancel_requests);
        interrupt = interrupts_asked;
      }
      if (interrupt != interrupts_done || Cancelled()) {  // everything so far ends now
        for (auto& [easy, transfer] : active) cancelled.push_back(transfer);
        cancelled.insert(cancelled.end(), retrying.begin(), retrying.end());
        cancelled.insert(cancelled.end(), arrived.begin(), arrived.end());
        arrived.clear();
      }
      for (auto& transfer : cancelled) Abandon(transfer);
      if (interrupt != interrupts_done) {
        {
          std::lock_guard<std::mutex> lock(mutex);
          interrupts_done = interrupt;
        }
        interrupted_cv.notify_all();
      }
      for (auto& transfer : arrived) StartAttempt(std::move(transfer));
      StartDueRetries();
      int running = 0;
      curl_multi_perform(multi, &running);
      int left = 0;
      while (CURLMsg* message = curl_multi_info_read(multi, &left)) {
        if (message->msg == CURLMSG_DONE)
          Finish(message->easy_handle, message->data.result, random);
      }
      EndStalled(random);
      curl_multi_poll(multi, nullptr, 0, PollMilliseconds(), nullptr);
    }
    // Stopping: every transfer ends as cancelled (and an Interrupt waiting for that returns).
    {
      std::lock_guard<std::mutex> lock(mutex);
      interrupts_done = interrupts_asked;
    }
    interrupted_cv.notify_all();
    std::vector<std::shared_ptr<Transfer>> all;
    for (auto& [easy, transfer] : active) all.push_back(transfer);
    for (auto& transfer : retrying) all.push_back(transfer);
    {
      std::lock_guard<std::mutex> lock(mutex);
      for (auto& transfer : incoming) all.push_back(transfer);
      incoming.clear();
    }
    for (auto& transfer : all) Abandon(transfer);
  }

  // Whether the caller's flag (RemoteOptions::cancel) ends every request.
  bool Cancelled() const { return options.cancel && options.cancel->load(); }

  Clock::duration StallLimit() const {
    return std::chrono::seconds(std::max(1, options.stall_seconds));
  }

  // Until the next retry is due or the next transfer would have stalled, at most 1 s; at most
  // kCancelCheck while a transfer waits and the caller may cancel (RemoteOptions::cancel), whose
  // flag sets nothing that would wake the poll.
  int PollMilliseconds() const {
    constexpr int kCancelCheck = 100;
    const bool waiting = !active.empty() || !retrying.empty();
    int wait = options.cancel && waiting ? kCancelCheck : 1000;
    const Clock::time_point now = Clock::now();
    auto until = [&](Clock::time_point due) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(due - now);
      wait = std::min<int>(wait, static_cast<int>(std::max<int64_t>(0, left.count() + 1)));
    };
    for (const auto& transfer : retrying) until(transfer->retry_at);
    for (const auto& [easy, transfer] : active) until(transfer->last_progress + StallLimit());
    return wait;
  }

  // Ends (as a failed attempt, which may be retried) every transfer that has received nothing
  // for stall_seconds. Exact, where libcurl's low-speed limit averages the speed over several
  // seconds and so needs about 6 s more to notice a body that stopped.
  void EndStalled(std::mt19937& random) {
    const Clock::time_point now = Clock::now();
    std::vector<CURL*> stalled;
    for (const auto& [easy, transfer] : active) {
      if (now - transfer->last_progress >= StallLimit()) stalled.push_back(easy);
    }
    for (CURL* easy : stalled) {
      Transfer& transfer = *active.at(easy);
      std::snprintf(transfer.error_buffer, sizeof(transfer.error_buffer),
                    "nothing received for %d s (%s)", std::max(1, options.stall_seconds),
                    stall_option.c_str());
      Finish(easy, CURLE_OPERATION_TIMEDOUT, random);
    }
  }

  void StartDueRetries() {
    const Clock::time_point now = Clock::now();
    std::vector<std::shared_ptr<Transfer>> due;
    std::erase_if(retrying, [&](const std::shared_ptr<Transfer>& transfer) {
      if (transfer->retry_at > now) return false;
      due.push_back(transfer);
      return true;
    });
    for (auto& transfer : due) StartAttempt(std::move(transfer));
  }

  void StartAttempt(std::shared_ptr<Transfer> transfer) {
    {
      std::lock_guard<std::mutex> lock(transfer->mutex);
      if (transfer->cancel_requested) {
        transfer->completed = true;
        transfer->error = MakeError(ErrorCode::kCancelled, "reading {} was cancelled", display);
        transfer->completed_cv.notify_all();
        return;
      }
    }
    if (!transfer->PrepareAttempt(url, options, auth, trust)) {
      transfer->Complete(std::nullopt, Error(ErrorCode::kInternal, "curl_easy_init failed"));
      return;
    }
    curl_multi_add_handle(multi, transfer->easy);
    active.emplace(transfer->easy, std::move(transfer));
  }

  void Release(Transfer& transfer) {
    if (transfer.easy != nullptr) active.erase(transfer.easy);
    transfer.ReleaseAttempt(multi);
  }

  void Finish(CURL* easy, CURLcode code, std::mt19937& random) {
    const auto found = active.find(easy);
    if (found == active.end()) return;
    std::shared_ptr<Transfer> transfer = found->second;
    Response& response = transfer->response;
    response.curl_code = code;
    response.curl_error = transfer->error_buffer;
    curl_off_t start = 0;
    curl_off_t first_byte = 0;
    curl_off_t total = 0;
    curl_easy_getinfo(easy, CURLINFO_PRETRANSFER_TIME_T, &start);
    curl_easy_getinfo(easy, CURLINFO_STARTTRANSFER_TIME_T, &first_byte);
    curl_easy_getinfo(easy, CURLINFO_TOTAL_TIME_T, &total);
    Release(*transfer);
    const Judgement judgement =
        Judge(response, transfer->asked, transfer->pinned ? &*transfer->pinned : nullptr, display);
    switch (judgement.verdict) {
      case Verdict::kOk: {
        const TransferTiming timing{judgement.bytes, static_cast<double>(first_byte - start) * 1e-6,
                                    static_cast<double>(total - start) * 1e-6};
        if (observer) observer(timing);
        transfer->Complete(judgement, std::nullopt);
        return;
      }
      case Verdict::kFail: transfer->Complete(std::nullopt, judgement.error); return;
      case Verdict::kRetry:
        if (transfer->attempts > options.retries) {
          transfer->Complete(std::nullopt, RetriesExhausted(transfer->asked, display,
                                                            transfer->attempts, judgement.reason));
          return;
        }
        transfer->retry_at = Clock::now() + Backoff(transfer->attempts - 1, random);
        retrying.push_back(std::move(transfer));
        return;
    }
  }

  void Abandon(const std::shared_ptr<Transfer>& transfer) {
    Release(*transfer);
    std::erase(retrying, transfer);
    bool done = false;
    {
      std::lock_guard<std::mutex> lock(transfer->mutex);
      done = transfer->completed;
    }
    if (!done) {
      transfer->Complete(std::nullopt,
                         MakeError(ErrorCode::kCancelled, "reading {} was cancelled", display));
    }
  }

  const std::string url;
  const std::string display;
  const RemoteOptions options;
  // stall_seconds as the caller's front end spells it, named once here: the stall message is
  // written on the client's thread.
  const std::string stall_option;
  const RequestAuth auth;
  const TlsTrust trust;
  const Observer observer;
  CURLM* multi = nullptr;

  std::mutex mutex;
  bool stopping = false;                   // guarded by mutex
  bool interrupted = false;                // guarded by mutex: from Interrupt until Resume
  uint64_t interrupts_asked = 0;           // guarded by mutex
  uint64_t interrupts_done = 0;            // guarded by mutex: the loop ended what was in flight
  std::condition_variable interrupted_cv;  // interrupts_done moved
  std::vector<std::shared_ptr<Transfer>> incoming;         // guarded by mutex
  std::vector<std::shared_ptr<Transfer>> cancel_requests;  // guarded by mutex

  // The client's thread only.
  std::unordered_map<CURL*, std::shared_ptr<Transfer>> active;
  std::vector<std::shared_ptr<Transfer>> retrying;
  std::thread thread;  // last: started once everything above exists
};

HttpClient::HttpClient(std::string url, std::string display, const RemoteOptions& options,
                       RequestAuth auth, Observer observer)
    : impl_(std::make_unique<Impl>(std::move(url), std::move(display), options, std::move(auth),
                                   std::move(observer))) {}

HttpClient::~HttpClient() = default;

std::shared_ptr<Transfer> HttpClient::Start(RangeAsked asked, std::span<uint8_t> dest,
                                            const ObjectVersion* pinned) {
  if (asked.length == 0 || dest.size() != asked.length) {
    throw MakeError(ErrorCode::kInternal, "HttpClient::Start: a range of {} bytes into {}",
                    asked.length, dest.size());
  }
  auto transfer = std::make_shared<Transfer>(asked, dest, pinned);
  impl_->Queue(transfer);
  return transfer;
}

Judgement HttpClient::Wait(Transfer& transfer) {
  const NetworkWait waiting;
  std::unique_lock<std::mutex> lock(transfer.mutex);
  transfer.completed_cv.wait(lock, [&] { return transfer.completed; });
  // A copy of the stored Error would share its message's reference-counted buffer with the
  // Transfer, which the transfer thread may destroy while the copy is being read: that count
  // lives in the uninstrumented libstdc++, so ThreadSanitizer reports the free as a race. A
  // new Error (Reworded, its missing_input() kept) owns its own message.
  if (transfer.error) throw transfer.error->Reworded(transfer.error->what());
  return *transfer.judgement;
}

bool HttpClient::Done(const Transfer& transfer) {
  std::lock_guard<std::mutex> lock(transfer.mutex);
  return transfer.completed;
}

void HttpClient::Cancel(const std::shared_ptr<Transfer>& transfer) {
  {
    std::lock_guard<std::mutex> lock(transfer->mutex);
    if (transfer->completed) return;
    transfer->cancel_requested = true;
  }
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->cancel_requests.push_back(transfer);
  }
  curl_multi_wakeup(impl_->multi);
}

void HttpClient::Interrupt() {
  std::unique_lock<std::mutex> lock(impl_->mutex);
  impl_->interrupted = true;
  const uint64_t asked = ++impl_->interrupts_asked;
  curl_multi_wakeup(impl_->multi);
  impl_->interrupted_cv.wait(lock, [&] { return impl_->interrupts_done >= asked; });
}

void HttpClient::Resume() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->interrupted = false;
}

const std::string& HttpClient::display() const { return impl_->display; }

}  // namespace h5feed::remote
