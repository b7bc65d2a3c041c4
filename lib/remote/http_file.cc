// HttpFile (http_file.h).
#include "remote/http_file.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "h5feed/error.h"
#include "io/io_errors.h"
#include "make_error.h"

namespace h5feed::remote {
namespace {

// A transfer as the link's estimator counts it: from the request going out, its latency the
// time to the first byte.
void RecordTransfer(io::InFlightEstimator& link, const TransferTiming& timing) {
  const auto end = io::InFlightEstimator::Clock::now();
  const auto took = std::chrono::duration_cast<io::InFlightEstimator::Clock::duration>(
      std::chrono::duration<double>(timing.total_seconds));
  link.Record(timing.bytes, timing.first_byte_seconds, end - took, end);
}

}  // namespace

std::unique_ptr<HttpFile> HttpFile::Open(HttpTarget target, const RemoteOptions& options,
                                         const std::string& expected_version, uint64_t head_bytes) {
  auto link = std::make_unique<io::InFlightEstimator>(io::InFlightEstimator::kLink);
  auto client =
      std::make_unique<HttpClient>(target.url, target.display, options, target.auth,
                                   [estimator = link.get()](const TransferTiming& timing) {
                                     RecordTransfer(*estimator, timing);
                                   });
  std::vector<uint8_t> head(std::max<uint64_t>(head_bytes, 1));
  const auto transfer = client->Start(RangeAsked{0, head.size()}, head, nullptr);
  const Judgement opened = HttpClient::Wait(*transfer);
  head.resize(opened.bytes);
  if (!expected_version.empty() && opened.seen.Id() != expected_version) {
    throw MakeError(
        ErrorCode::kIo,
        "{} changed since it was first opened: it was {}, now {}. Nothing of the new version is "
        "mixed with what was read of the old one; open it again to read the new version",
        target.display, expected_version, opened.seen.Id());
  }
  return std::unique_ptr<HttpFile>(new HttpFile(std::move(target), std::move(link),
                                                std::move(client), opened.seen, std::move(head)));
}

HttpFile::HttpFile(HttpTarget target, std::unique_ptr<io::InFlightEstimator> link,
                   std::unique_ptr<HttpClient> client, ObjectVersion version,
                   std::vector<uint8_t> head)
    : target_(std::move(target)),
      link_(std::move(link)),
      client_(std::move(client)),
      version_(std::move(version)),
      head_(std::move(head)),
      readahead_(*client_, version_, *link_) {}

void HttpFile::ReadAt(uint64_t offset, std::span<uint8_t> dest) const {
  if (dest.empty()) return;
  if (offset > version_.size || dest.size() > version_.size - offset) {
    const uint64_t end = version_.size;
    throw io::TruncatedError(target_.display, offset, dest.size(), end,
                             offset >= end ? dest.size() : offset + dest.size() - end);
  }
  if (offset + dest.size() <= head_.size() && head_trusted_.load(std::memory_order_relaxed)) {
    std::memcpy(dest.data(), head_.data() + offset, dest.size());
    return;
  }
  if (readahead_.Take(offset, dest)) return;
  const auto transfer = client_->Start(RangeAsked{offset, dest.size()}, dest, &version_);
  HttpClient::Wait(*transfer);
}

HttpFile::Prefetch HttpFile::PrefetchAt(uint64_t offset, uint64_t length) {
  if (length == 0 || offset > version_.size || length > version_.size - offset) {
    return Prefetch::kNotNeeded;  // ReadAt reports it
  }
  if (offset + length <= head_.size() && head_trusted_.load(std::memory_order_relaxed)) {
    return Prefetch::kHeld;
  }
  return readahead_.Start(offset, length);
}

void HttpFile::DropPrefetch(uint64_t offset, uint64_t length) { readahead_.Drop(offset, length); }

void HttpFile::DropAllPrefetches() { readahead_.DropAll(); }

void HttpFile::LimitPrefetch(uint64_t bytes) { readahead_.SetLimit(bytes); }

void HttpFile::Forget(uint64_t offset, uint64_t length) {
  readahead_.Drop(offset, length);
  // The head read at open may be what is corrupt: from now on every read asks the server.
  if (offset < head_.size()) head_trusted_.store(false, std::memory_order_relaxed);
}

}  // namespace h5feed::remote
