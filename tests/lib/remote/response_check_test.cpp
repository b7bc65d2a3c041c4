#include <curl/curl.h>
#include <doctest/doctest.h>

#include <string>

#include "remote/response_check.h"

namespace h5feed::remote {
namespace {

const std::string kShown = "https://host/train.h5?...";

Response Partial(uint64_t first, uint64_t last, uint64_t total, const std::string& etag) {
  Response response;
  response.status = 206;
  response.content_range =
      "bytes " + std::to_string(first) + "-" + std::to_string(last) + "/" + std::to_string(total);
  response.etag = etag;
  response.body_bytes = last - first + 1;
  return response;
}

ObjectVersion Version(uint64_t size, const std::string& etag) {
  ObjectVersion version;
  version.size = size;
  version.etag = etag;
  return version;
}

TEST_CASE("Content-Range values parse, and malformed ones are refused") {
  const auto range = ParseContentRange("bytes 100-199/1000");
  REQUIRE(range);
  CHECK(range->satisfied);
  CHECK(range->first == 100);
  CHECK(range->last == 199);
  CHECK(range->total == 1000u);
  const auto unsatisfied = ParseContentRange("bytes */0");
  REQUIRE(unsatisfied);
  CHECK_FALSE(unsatisfied->satisfied);
  CHECK(unsatisfied->total == 0u);
  const auto unknown_total = ParseContentRange("bytes 0-9/*");
  REQUIRE(unknown_total);
  CHECK_FALSE(unknown_total->total);
  for (const char* bad :
       {"bytes 10-5/100", "bytes 0-100/100", "items 0-1/2", "bytes 0-x/9", "bytes 0-1", ""}) {
    INFO(bad);
    CHECK_FALSE(ParseContentRange(bad));
  }
}

TEST_CASE("a complete 206 of the pinned version is used") {
  const ObjectVersion pinned = Version(1000, "\"v1\"");
  const Judgement judgement = Judge(Partial(100, 199, 1000, "\"v1\""), {100, 100}, &pinned, kShown);
  CHECK(judgement.verdict == Verdict::kOk);
  CHECK(judgement.bytes == 100);
}

TEST_CASE("the opening request learns the size and version, also of an object smaller than asked") {
  const Judgement judgement = Judge(Partial(0, 499, 500, "\"v1\""), {0, 4096}, nullptr, kShown);
  REQUIRE(judgement.verdict == Verdict::kOk);
  CHECK(judgement.bytes == 500);
  CHECK(judgement.seen.size == 500);
  CHECK(judgement.seen.etag == "\"v1\"");
  Response empty;
  empty.status = 416;
  empty.content_range = "bytes */0";
  const Judgement none = Judge(empty, {0, 4096}, nullptr, kShown);
  REQUIRE(none.verdict == Verdict::kOk);
  CHECK(none.seen.size == 0);
}

TEST_CASE("a short body, a reset connection, a stall and 5xx are retried") {
  const ObjectVersion pinned = Version(1000, "\"v1\"");
  Response short_body = Partial(0, 99, 1000, "\"v1\"");
  short_body.body_bytes = 60;
  CHECK(Judge(short_body, {0, 100}, &pinned, kShown).verdict == Verdict::kRetry);
  for (int code : {CURLE_RECV_ERROR, CURLE_OPERATION_TIMEDOUT, CURLE_COULDNT_CONNECT,
                   CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING}) {
    Response failed;
    failed.curl_code = code;
    CHECK(Judge(failed, {0, 100}, &pinned, kShown).verdict == Verdict::kRetry);
  }
  for (long status : {500L, 502L, 503L, 504L, 429L}) {
    Response busy;
    busy.status = status;
    const Judgement judgement = Judge(busy, {0, 100}, &pinned, kShown);
    CHECK(judgement.verdict == Verdict::kRetry);
    CHECK(judgement.reason.find(std::to_string(status)) != std::string::npos);
  }
  const Error exhausted = RetriesExhausted({0, 100}, kShown, 6, "HTTP 503");
  CHECK(exhausted.code() == ErrorCode::kIo);
  CHECK(std::string(exhausted.what()).find("6 times") != std::string::npos);
}

TEST_CASE("404 and 403 fail at once, naming the URL as shown and what the server said") {
  Response missing;
  missing.status = 404;
  missing.error_body = "<Error><Code>NoSuchKey</Code><Message>The key does not exist</Message>";
  const Judgement not_found = Judge(missing, {0, 100}, nullptr, kShown);
  REQUIRE(not_found.verdict == Verdict::kFail);
  CHECK(not_found.error->code() == ErrorCode::kNotFound);
  CHECK(not_found.error->missing_input());  // the command line exits 2, as for a missing path
  const std::string text = not_found.error->what();
  CHECK(text.find(kShown) != std::string::npos);
  CHECK(text.find("NoSuchKey: The key does not exist") != std::string::npos);
  Response denied;
  denied.status = 403;
  const Judgement refused = Judge(denied, {0, 100}, nullptr, kShown);
  REQUIRE(refused.verdict == Verdict::kFail);
  CHECK(refused.error->code() == ErrorCode::kIo);
  CHECK_FALSE(refused.error->missing_input());
  CHECK(std::string(refused.error->what()).find("denied") != std::string::npos);
  Response gone;
  gone.status = 410;
  const Judgement removed = Judge(gone, {0, 100}, nullptr, kShown);
  REQUIRE(removed.verdict == Verdict::kFail);
  CHECK(removed.error->code() == ErrorCode::kNotFound);
  CHECK(removed.error->missing_input());
}

TEST_CASE("a refused TLS certificate fails at once, naming what it was checked against") {
  for (int code : {CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE}) {
    Response refused;
    refused.curl_code = code;
    refused.curl_error = "SSL certificate problem: unable to get local issuer certificate";
    refused.tls_refusal_advice = "checked against the CA certificates of SSL_CERT_FILE";
    const Judgement judgement = Judge(refused, {0, 100}, nullptr, kShown);
    REQUIRE(judgement.verdict == Verdict::kFail);
    CHECK(judgement.error->code() == ErrorCode::kIo);
    const std::string text = judgement.error->what();
    CHECK(text.find("the TLS certificate of " + kShown + " was refused: SSL certificate problem") !=
          std::string::npos);
    CHECK(text.ends_with("; checked against the CA certificates of SSL_CERT_FILE"));
  }
}

TEST_CASE("a response of another version fails as a changed object, never retried") {
  const ObjectVersion pinned = Version(1000, "\"v1\"");
  const auto changed = [&](const Response& response) {
    const Judgement judgement = Judge(response, {0, 100}, &pinned, kShown);
    REQUIRE(judgement.verdict == Verdict::kFail);
    CHECK(judgement.error->code() == ErrorCode::kIo);
    CHECK(std::string(judgement.error->what()).find("changed") != std::string::npos);
  };
  changed(Partial(0, 99, 1000, "\"v2\""));  // another ETag
  changed(Partial(0, 99, 2000, "\"v1\""));  // another size
  Response precondition;
  precondition.status = 412;
  changed(precondition);
  // A server that does not repeat the ETag is taken at its word for the size.
  CHECK(Judge(Partial(0, 99, 1000, ""), {0, 100}, &pinned, kShown).verdict == Verdict::kOk);
}

TEST_CASE("a server that answers a range with the whole object is refused") {
  const ObjectVersion pinned = Version(1000, "\"v1\"");
  Response whole;
  whole.status = 200;
  whole.body_overflow = true;
  whole.curl_code = CURLE_WRITE_ERROR;
  const Judgement judgement = Judge(whole, {100, 100}, &pinned, kShown);
  REQUIRE(judgement.verdict == Verdict::kFail);
  CHECK(judgement.error->code() == ErrorCode::kUnsupported);
  CHECK(std::string(judgement.error->what()).find("Range") != std::string::npos);
  // The whole of a small object is a fine answer to the opening request.
  Response small;
  small.status = 200;
  small.body_bytes = 300;
  const Judgement opened = Judge(small, {0, 4096}, nullptr, kShown);
  REQUIRE(opened.verdict == Verdict::kOk);
  CHECK(opened.seen.size == 300);
}

TEST_CASE("a 206 for other bytes than asked is refused") {
  const ObjectVersion pinned = Version(1000, "\"v1\"");
  const Judgement judgement = Judge(Partial(0, 99, 1000, "\"v1\""), {100, 100}, &pinned, kShown);
  REQUIRE(judgement.verdict == Verdict::kFail);
  CHECK(judgement.error->code() == ErrorCode::kIo);
}

}  // namespace
}  // namespace h5feed::remote
