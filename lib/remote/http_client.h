#pragma once
// Range requests to one remote object over libcurl's multi interface: many requests in
// flight at once on a few connections that are kept open and reused, driven by one thread of
// the client's own; a failed attempt that may pass (response_check.h) is repeated after a
// backoff, without the caller seeing it.
//
// Thread-safety: Start, Wait and Cancel may be called from many threads at once. The client
// owns its thread and its connections; destroying it ends every transfer still in flight
// (their waiters get Error(kCancelled)).

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "h5feed/remote_options.h"
#include "remote/response_check.h"

namespace h5feed::remote {

// How requests prove who sends them (s3_location.h builds it for s3://).
struct RequestAuth {
  std::string aws_sigv4;             // CURLOPT_AWS_SIGV4 ("aws:amz:REGION:s3"), "" for none
  std::string user_password;         // "KEY_ID:SECRET" for SigV4
  std::vector<std::string> headers;  // extra request headers ("x-amz-security-token: ...")
};

// One request. Opaque to callers, who Wait for it (or Cancel it).
class Transfer;

// What a completed transfer measured, for the prefetch depth (io/in_flight_estimator.h).
struct TransferTiming {
  uint64_t bytes = 0;
  double first_byte_seconds = 0;  // from the request going out to the first byte back
  double total_seconds = 0;       // from the request going out to the last byte
};

class HttpClient {
 public:
  // Told of every transfer that completed with kOk, on the client's thread, as it completes.
  using Observer = std::function<void(const TransferTiming&)>;

  // `url`: where requests go (a pre-signed URL with its query); `display`: what messages show.
  HttpClient(std::string url, std::string display, const RemoteOptions& options, RequestAuth auth,
             Observer observer = nullptr);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Starts a GET of `asked` into `dest` (asked.length bytes, which must stay valid until the
  // transfer has completed or been cancelled). Every response must show `pinned` (copied),
  // the version opened; without it (the opening request) the response tells the version.
  // Returns at once.
  std::shared_ptr<Transfer> Start(RangeAsked asked, std::span<uint8_t> dest,
                                  const ObjectVersion* pinned);

  // Blocks until `transfer` has completed; returns its Judgement (verdict kOk). Throws the
  // Error that ended it: one from Judge, RetriesExhausted after the last attempt, or
  // Error(kCancelled).
  static Judgement Wait(Transfer& transfer);
  // Whether Wait would return (or throw) at once.
  static bool Done(const Transfer& transfer);

  // Ends `transfer` soon if it has not completed: Wait then throws Error(kCancelled). Its
  // `dest` may be written until Done(transfer): Wait before freeing it.
  void Cancel(const std::shared_ptr<Transfer>& transfer);

  // Ends every transfer in flight or waiting for a retry, and every one started until
  // Resume, with Error(kCancelled), and returns once they have ended: a reader that stops
  // does not wait for a slow or stalled server.
  void Interrupt();
  void Resume();

  const std::string& display() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace h5feed::remote
