#pragma once
// One range request of an HttpClient (http_client.h), across its attempts: the libcurl easy
// handle of the attempt in flight, set up here (the range, the precondition that pins the
// version opened, signing, and the callbacks that fill its Response), and its completion,
// which waiters block on.
//
// Thread-safety: the attempt's fields are the client's thread's alone; the completion fields
// are guarded by `mutex` and shared with the threads that wait. Owned by shared_ptr (the
// client and the waiters); `dest` is the caller's, written until the transfer completes.

#include <curl/curl.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <span>
#include <string>

#include "h5feed/error.h"
#include "h5feed/remote_options.h"
#include "remote/http_client.h"
#include "remote/response_check.h"
#include "remote/tls_trust.h"

namespace h5feed::remote {

class Transfer {
 public:
  using Clock = std::chrono::steady_clock;

  Transfer(RangeAsked range, std::span<uint8_t> into, const ObjectVersion* version);
  ~Transfer();
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;

  // Sets up the next attempt: a new easy handle in `easy` (the previous one released), ready
  // for curl_multi_add_handle. False when libcurl cannot make one.
  bool PrepareAttempt(const std::string& url, const RemoteOptions& options, const RequestAuth& auth,
                      const TlsTrust& trust);
  // Removes the attempt's handle from `multi` and frees it (nothing when there is none).
  void ReleaseAttempt(CURLM* multi);

  // Ends the transfer: `ok` (a kOk Judgement) or `failure`; wakes every waiter.
  void Complete(std::optional<Judgement> ok, std::optional<Error> failure);

  const RangeAsked asked;
  const std::span<uint8_t> dest;
  const std::optional<ObjectVersion> pinned;

  // The attempt in progress (the client's thread only).
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  Response response;
  char error_buffer[CURL_ERROR_SIZE] = {};
  int attempts = 0;
  Clock::time_point retry_at;
  Clock::time_point last_progress;  // the attempt's start, or the last byte received

  // Completion, read by waiters.
  mutable std::mutex mutex;
  std::condition_variable completed_cv;
  bool completed = false;              // guarded by mutex
  bool cancel_requested = false;       // guarded by mutex
  std::optional<Judgement> judgement;  // kOk, guarded by mutex
  std::optional<Error> error;          // guarded by mutex
};

}  // namespace h5feed::remote
