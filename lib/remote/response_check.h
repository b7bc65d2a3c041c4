#pragma once
// Judges one attempt of a range request: whether its bytes can be used, whether the attempt
// may be repeated (a reset connection, a stall, a short body, 5xx), or whether the request has
// failed for good (403, 404, a changed object, a server that ignores Range). Pure functions of
// what libcurl and the server said, so each rule is tested without a network.
//
// Thread-safety: stateless.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "h5feed/error.h"

namespace h5feed::remote {

// "Content-Range: bytes 0-99/1234" or "bytes */1234" (RFC 9110, 14.4).
struct ContentRange {
  bool satisfied = true;  // false for "*/total" (416's form)
  uint64_t first = 0;
  uint64_t last = 0;
  std::optional<uint64_t> total;  // absent for ".../*" (length unknown)
};
std::optional<ContentRange> ParseContentRange(std::string_view value);

// What the object was when it was opened; every later response must agree. The ETag is used
// when the server gives a strong one, else Last-Modified.
struct ObjectVersion {
  uint64_t size = 0;
  std::string etag;           // with its quotes, as sent ('"6b06-6cdf47"')
  std::string last_modified;  // as sent
  // What identifies this version in messages and keys: the ETag, else Last-Modified + size.
  std::string Id() const;
  // The ETag is strong (not W/"..."): If-Match can name it.
  bool strong_etag() const;
};

// What one attempt received (reset for every attempt).
struct Response {
  int curl_code = 0;       // CURLcode (0: the exchange completed)
  std::string curl_error;  // libcurl's text for curl_code
  long status = 0;         // HTTP status of the last response (after redirects)
  std::optional<std::string> content_range;
  std::string etag;
  std::string last_modified;
  uint64_t body_bytes = 0;         // bytes of a 200/206 body delivered
  bool body_overflow = false;      // a 200/206 body longer than the range asked for (aborted)
  std::string error_body;          // the start of a 4xx/5xx body (S3 explains itself there)
  std::string tls_refusal_advice;  // what a refused certificate's message adds (tls_trust.h)
};

// The bytes asked for: [offset, offset + length). When the object is not yet pinned (its
// first request), its size is unknown and the answer may be shorter: the object is smaller.
struct RangeAsked {
  uint64_t offset = 0;
  uint64_t length = 0;
};

enum class Verdict { kOk, kRetry, kFail };

struct Judgement {
  Verdict verdict = Verdict::kOk;
  // kOk: the bytes received (== length, or less at the first request of a small object) and
  // the version the response described (size, ETag, Last-Modified).
  uint64_t bytes = 0;
  ObjectVersion seen;
  // kRetry: why (for the error after the last attempt); kFail: the error, naming `display`.
  std::string reason;
  std::optional<Error> error;
};

// `pinned`: the version opened (nullptr for the request that opens the object). `display`:
// the location as messages show it (location.h).
Judgement Judge(const Response& response, const RangeAsked& asked, const ObjectVersion* pinned,
                const std::string& display);

// The error after `attempts` attempts that all ended in kRetry, the last for `reason`.
Error RetriesExhausted(const RangeAsked& asked, const std::string& display, int attempts,
                       const std::string& reason);

// The error for a response that shows another version than `pinned`.
Error ChangedObject(const std::string& display, const ObjectVersion& pinned,
                    const std::string& now);

}  // namespace h5feed::remote
