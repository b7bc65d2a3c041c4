// Judge and the errors of remote reads (response_check.h).
#include "remote/response_check.h"

#include "make_error.h"

#include <curl/curl.h>

#include <charconv>

namespace h5feed::remote {
namespace {

bool ParseNumber(std::string_view text, uint64_t& value) {
  if (text.empty()) return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r' ||
                           text.back() == '\n')) {
    text.remove_suffix(1);
  }
  return text;
}

std::string Bytes(const RangeAsked& asked) {
  return "bytes " + std::to_string(asked.offset) + "-" +
         std::to_string(asked.offset + asked.length - 1);
}

// S3 and compatible stores explain a refusal in XML: <Code>AccessDenied</Code>
// <Message>...</Message>. What they say, when they do.
std::string ServerSays(const std::string& body) {
  const auto element = [&body](const std::string& name) -> std::string {
    const size_t open = body.find("<" + name + ">");
    if (open == std::string::npos) return "";
    const size_t from = open + name.size() + 2;
    const size_t close = body.find("</" + name + ">", from);
    return close == std::string::npos ? "" : body.substr(from, close - from);
  };
  const std::string code = element("Code");
  std::string message = element("Message");
  while (!message.empty() && message.back() == '.') message.pop_back();
  if (code.empty() && message.empty()) return "";
  return "; the server says: " + code + (code.empty() || message.empty() ? "" : ": ") + message;
}

// Transport failures that a new attempt may not meet: the connection was refused, reset or
// dropped, nothing arrived for the stall limit, the body ended early, HTTP/2 broke off.
bool TransientTransport(int code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR: return true;
    default: return false;
  }
}

bool TransientStatus(long status) {
  return status == 408 || status == 429 || (status >= 500 && status <= 599);
}

Judgement Retry(std::string reason) {
  Judgement judgement;
  judgement.verdict = Verdict::kRetry;
  judgement.reason = std::move(reason);
  return judgement;
}

Judgement Fail(Error error) {
  Judgement judgement;
  judgement.verdict = Verdict::kFail;
  judgement.error = std::move(error);
  return judgement;
}

ObjectVersion Seen(const Response& response, uint64_t size) {
  ObjectVersion seen;
  seen.size = size;
  seen.etag = response.etag;
  seen.last_modified = response.last_modified;
  return seen;
}

// Whether a response that describes `seen` comes from the version `pinned` (a header the
// response lacks is taken as agreeing: a server need not repeat it).
std::optional<std::string> Difference(const ObjectVersion& pinned, const ObjectVersion& seen) {
  if (seen.size != pinned.size) return std::to_string(seen.size) + " bytes";
  if (!seen.etag.empty() && !pinned.etag.empty() && seen.etag != pinned.etag) return seen.etag;
  if (!seen.last_modified.empty() && !pinned.last_modified.empty() &&
      seen.last_modified != pinned.last_modified) {
    return "modified " + seen.last_modified;
  }
  return std::nullopt;
}

// The object's size as the response's Content-Range says it ("bytes */1234", a 416's form);
// nullopt without one, or with one that says none. One optional, not a ContentRange's optional
// total within an optional: GCC at -O1 (the TSan build) took the nested one's payload for
// maybe-uninitialized where a 416 is judged.
std::optional<uint64_t> RangeTotal(const Response& response) {
  if (!response.content_range) return std::nullopt;
  const std::optional<ContentRange> range = ParseContentRange(*response.content_range);
  if (!range) return std::nullopt;
  return range->total;
}

Judgement JudgeStatus(const Response& response, const RangeAsked& asked,
                      const ObjectVersion* pinned, const std::string& display) {
  const long status = response.status;
  const std::string says = ServerSays(response.error_body);
  if (status == 404 || status == 410) {
    return Fail(Error::MissingInput(fmt::format(
        "{} does not exist (HTTP {}){}; check the URL (for s3://, the bucket and the key)", display,
        status, says)));
  }
  if (status == 401 || status == 403) {
    return Fail(MakeError(
        ErrorCode::kIo,
        "access to {} was denied (HTTP {}){}; check the credentials (AWS_ACCESS_KEY_ID and "
        "AWS_SECRET_ACCESS_KEY or ~/.aws/credentials for s3://) and, for a pre-signed URL, that it "
        "has not expired",
        display, status, says));
  }
  if (status == 412 && pinned != nullptr) {
    return Fail(ChangedObject(display, *pinned, "another version (HTTP 412: If-Match failed)"));
  }
  if (status == 416) {
    const std::optional<uint64_t> total = RangeTotal(response);
    if (pinned == nullptr && total == 0) {  // an empty object
      Judgement judgement;
      judgement.seen = Seen(response, 0);
      return judgement;
    }
    if (pinned != nullptr && total && *total != pinned->size) {
      return Fail(ChangedObject(display, *pinned, std::to_string(*total) + " bytes"));
    }
    return Fail(MakeError(
        ErrorCode::kCorrupt,
        "{} ends before {} (HTTP 416): the object is shorter than its metadata says; upload it "
        "again",
        display, Bytes(asked)));
  }
  if (TransientStatus(status)) return Retry("HTTP " + std::to_string(status) + says);
  return Fail(MakeError(ErrorCode::kIo, "reading {} of {} failed: HTTP {}{}", Bytes(asked), display,
                        status, says));
}

// A 206 answer: the range must be the one asked for (or, for the first request, its part
// within a smaller object), of the pinned version, with every byte delivered.
Judgement JudgePartial(const Response& response, const RangeAsked& asked,
                       const ObjectVersion* pinned, const std::string& display) {
  const std::optional<ContentRange> range =
      response.content_range ? ParseContentRange(*response.content_range) : std::nullopt;
  if (!range || !range->satisfied || !range->total) {
    return Fail(MakeError(ErrorCode::kIo, "{} answered {} with an unusable Content-Range ({})",
                          display, Bytes(asked), response.content_range.value_or("none")));
  }
  const uint64_t total = *range->total;
  Judgement judgement;
  judgement.seen = Seen(response, total);
  if (pinned != nullptr) {
    if (std::optional<std::string> now = Difference(*pinned, judgement.seen)) {
      return Fail(ChangedObject(display, *pinned, *now));
    }
  }
  const uint64_t expected_last = pinned == nullptr && asked.offset + asked.length > total
                                     ? total - 1
                                     : asked.offset + asked.length - 1;
  if (range->first != asked.offset || range->last != expected_last) {
    return Fail(MakeError(
        ErrorCode::kIo,
        "{} answered a request for {} with bytes {}-{}: the server's range handling is broken",
        display, Bytes(asked), range->first, range->last));
  }
  const uint64_t expected_bytes = expected_last - asked.offset + 1;
  if (response.body_overflow) {
    return Fail(
        MakeError(ErrorCode::kIo,
                  "{} sent more than the {} bytes of {}: the server's range handling is broken",
                  display, expected_bytes, Bytes(asked)));
  }
  if (response.body_bytes != expected_bytes) {
    return Retry("the body ended after " + std::to_string(response.body_bytes) + " of " +
                 std::to_string(expected_bytes) + " bytes");
  }
  judgement.bytes = expected_bytes;
  return judgement;
}

}  // namespace

std::string ObjectVersion::Id() const {
  if (!etag.empty()) return "ETag " + etag;
  if (!last_modified.empty())
    return "modified " + last_modified + ", " + std::to_string(size) + " bytes";
  return std::to_string(size) + " bytes";
}

bool ObjectVersion::strong_etag() const { return !etag.empty() && etag.rfind("W/", 0) != 0; }

std::optional<ContentRange> ParseContentRange(std::string_view value) {
  value = Trim(value);
  if (value.substr(0, 6) != "bytes ") return std::nullopt;
  value.remove_prefix(6);
  const size_t slash = value.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  ContentRange range;
  const std::string_view span = value.substr(0, slash);
  const std::string_view total = value.substr(slash + 1);
  if (total != "*") {
    uint64_t number = 0;
    if (!ParseNumber(total, number)) return std::nullopt;
    range.total = number;
  }
  if (span == "*") {
    range.satisfied = false;
    return range;
  }
  const size_t dash = span.find('-');
  if (dash == std::string_view::npos || !ParseNumber(span.substr(0, dash), range.first) ||
      !ParseNumber(span.substr(dash + 1), range.last) || range.last < range.first ||
      (range.total && range.last >= *range.total)) {
    return std::nullopt;
  }
  return range;
}

Judgement Judge(const Response& response, const RangeAsked& asked, const ObjectVersion* pinned,
                const std::string& display) {
  if (response.curl_code == CURLE_WRITE_ERROR && response.body_overflow && response.status == 200) {
    return Fail(MakeError(
        ErrorCode::kUnsupported,
        "{} ignores Range requests (it answered a request for {} with HTTP 200 and the whole "
        "object); h5feed reads remote files in ranges: serve the file from a server that answers "
        "them (nginx, S3 and compatible stores, most CDNs)",
        display, Bytes(asked)));
  }
  if (response.curl_code != CURLE_OK && !response.body_overflow) {
    const std::string what = response.curl_error.empty()
                                 ? curl_easy_strerror(static_cast<CURLcode>(response.curl_code))
                                 : response.curl_error;
    if (TransientTransport(response.curl_code)) return Retry(what);
    if (response.curl_code == CURLE_PEER_FAILED_VERIFICATION ||
        response.curl_code == CURLE_SSL_CACERT_BADFILE) {
      return Fail(MakeError(ErrorCode::kIo, "the TLS certificate of {} was refused: {}; {}",
                            display, what, response.tls_refusal_advice));
    }
    if (response.curl_code == CURLE_COULDNT_RESOLVE_HOST ||
        response.curl_code == CURLE_URL_MALFORMAT ||
        response.curl_code == CURLE_UNSUPPORTED_PROTOCOL) {
      return Fail(MakeError(ErrorCode::kInvalidArgument, "cannot reach {}: {}; check the URL",
                            display, what));
    }
    return Fail(
        MakeError(ErrorCode::kIo, "reading {} of {} failed: {}", Bytes(asked), display, what));
  }
  if (response.status == 206) return JudgePartial(response, asked, pinned, display);
  if (response.status == 200) {
    // The whole object, asked for in full (or, at the first request, an object smaller than
    // the range) is a correct answer; anything else ignored the Range.
    const uint64_t size = response.body_bytes;
    const bool whole =
        !response.body_overflow && asked.offset == 0 &&
        (pinned == nullptr ? size <= asked.length : size == pinned->size && size == asked.length);
    if (!whole) {
      return Fail(MakeError(
          ErrorCode::kUnsupported,
          "{} ignores Range requests (it answered a request for {} with HTTP 200 and the whole "
          "object); serve the file from a server that answers them (nginx, S3 and compatible "
          "stores, most CDNs)",
          display, Bytes(asked)));
    }
    Judgement judgement;
    judgement.seen = Seen(response, size);
    if (pinned != nullptr) {
      if (std::optional<std::string> now = Difference(*pinned, judgement.seen)) {
        return Fail(ChangedObject(display, *pinned, *now));
      }
    }
    judgement.bytes = size;
    return judgement;
  }
  return JudgeStatus(response, asked, pinned, display);
}

Error RetriesExhausted(const RangeAsked& asked, const std::string& display, int attempts,
                       const std::string& reason) {
  return MakeError(
      ErrorCode::kIo,
      "reading {} of {} failed {} time{}, last: {}; check the network and the server (the remote "
      "options set the retries and timeouts: docs/remote.md)",
      Bytes(asked), display, attempts, (attempts == 1 ? "" : "s"), reason);
}

Error ChangedObject(const std::string& display, const ObjectVersion& pinned,
                    const std::string& now) {
  return MakeError(
      ErrorCode::kIo,
      "{} changed while it was read: it was {} when opened, now {}. Nothing of the new version is "
      "mixed with what was read of the old one; open it again to read the new version",
      display, pinned.Id(), now);
}

}  // namespace h5feed::remote
