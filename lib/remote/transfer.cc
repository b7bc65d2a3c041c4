// Transfer (transfer.h): one range request's attempts and completion.
#include "remote/transfer.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>

namespace h5feed::remote {
namespace {

bool HeaderIs(std::string_view line, std::string_view name) {
  if (line.size() <= name.size() || line[name.size()] != ':') return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(line[i])) != name[i]) return false;
  }
  return true;
}

std::string HeaderValue(std::string_view line, size_t name_size) {
  std::string_view value = line.substr(name_size + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) {
    value.remove_suffix(1);
  }
  return std::string(value);
}

constexpr size_t kErrorBodyBytes = 2048;  // S3's XML explanation fits

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  transfer->last_progress = Transfer::Clock::now();
  const std::string_view line(data, size * count);
  Response& response = transfer->response;
  if (line.rfind("HTTP/", 0) == 0) {  // a new response (after a redirect or 100 Continue)
    const size_t space = line.find(' ');
    const long status = space == std::string_view::npos ? 0 : std::atol(line.data() + space + 1);
    response.status = status;
    response.content_range.reset();
    response.etag.clear();
    response.last_modified.clear();
  } else if (HeaderIs(line, "content-range")) {
    response.content_range = HeaderValue(line, 13);
  } else if (HeaderIs(line, "etag")) {
    response.etag = HeaderValue(line, 4);
  } else if (HeaderIs(line, "last-modified")) {
    response.last_modified = HeaderValue(line, 13);
  }
  return size * count;
}

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  transfer->last_progress = Transfer::Clock::now();
  Response& response = transfer->response;
  const size_t bytes = size * count;
  if (response.status == 200 || response.status == 206) {
    if (response.body_bytes + bytes > transfer->dest.size()) {
      response.body_overflow = true;
      return 0;  // aborts with CURLE_WRITE_ERROR
    }
    std::memcpy(transfer->dest.data() + response.body_bytes, data, bytes);
    response.body_bytes += bytes;
    return bytes;
  }
  const size_t keep =
      std::min(bytes, kErrorBodyBytes - std::min(kErrorBodyBytes, response.error_body.size()));
  response.error_body.append(data, keep);
  return bytes;
}

}  // namespace

Transfer::Transfer(RangeAsked range, std::span<uint8_t> into, const ObjectVersion* version)
    : asked(range),
      dest(into),
      pinned(version ? std::optional<ObjectVersion>(*version) : std::nullopt) {}

Transfer::~Transfer() { ReleaseAttempt(nullptr); }

bool Transfer::PrepareAttempt(const std::string& url, const RemoteOptions& options,
                              const RequestAuth& auth, const TlsTrust& trust) {
  ++attempts;
  last_progress = Clock::now();
  response = Response{};
  response.tls_refusal_advice = RefusalAdvice(trust);
  error_buffer[0] = '\0';
  easy = curl_easy_init();
  if (easy == nullptr) return false;
  const std::string range =
      std::to_string(asked.offset) + "-" + std::to_string(asked.offset + asked.length - 1);
  if (pinned) {
    // The server refuses (412) a range of any other version than the one opened.
    if (pinned->strong_etag()) {
      headers = curl_slist_append(headers, ("If-Match: " + pinned->etag).c_str());
    } else if (!pinned->last_modified.empty()) {
      headers =
          curl_slist_append(headers, ("If-Unmodified-Since: " + pinned->last_modified).c_str());
    }
  }
  for (const std::string& header : auth.headers) {
    headers = curl_slist_append(headers, header.c_str());
  }
  curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy, CURLOPT_RANGE, range.c_str());  // copied by libcurl
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &OnHeader);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, this);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &OnBody);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, this);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(easy, CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT,
                   static_cast<long>(options.connect_timeout_seconds));
  // A stall (nothing received for stall_seconds) is ended by the client (last_progress).
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
  // HTTP/2 over TLS where the server offers it: many ranges on one connection.
  curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
  curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
  curl_easy_setopt(easy, CURLOPT_USERAGENT, "h5feed");
  if (!trust.ca_file.empty()) curl_easy_setopt(easy, CURLOPT_CAINFO, trust.ca_file.c_str());
  if (!trust.ca_dir.empty()) curl_easy_setopt(easy, CURLOPT_CAPATH, trust.ca_dir.c_str());
  if (!auth.aws_sigv4.empty()) {
    curl_easy_setopt(easy, CURLOPT_AWS_SIGV4, auth.aws_sigv4.c_str());
    curl_easy_setopt(easy, CURLOPT_USERPWD, auth.user_password.c_str());
  }
  return true;
}

void Transfer::ReleaseAttempt(CURLM* multi) {
  if (easy != nullptr) {
    if (multi != nullptr) curl_multi_remove_handle(multi, easy);
    curl_easy_cleanup(easy);
    easy = nullptr;
  }
  curl_slist_free_all(headers);
  headers = nullptr;
}

void Transfer::Complete(std::optional<Judgement> ok, std::optional<Error> failure) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    judgement = std::move(ok);
    error = std::move(failure);
    completed = true;
  }
  completed_cv.notify_all();
}

}  // namespace h5feed::remote
