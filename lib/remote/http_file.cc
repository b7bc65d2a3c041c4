// HttpFile (http_file.h).
#include "remote/http_file.h"

#include <algorithm>
#include <cstring>

#include "h5feed/error.h"
#include "io/io_errors.h"

namespace h5feed::remote {

std::unique_ptr<HttpFile> HttpFile::Open(HttpTarget target, const RemoteOptions& options,
                                         const std::string& expected_version,
                                         uint64_t head_bytes) {
  auto client = std::make_unique<HttpClient>(target.url, target.display, options, target.auth);
  std::vector<uint8_t> head(std::max<uint64_t>(head_bytes, 1));
  const auto transfer = client->Start(RangeAsked{0, head.size()}, head, nullptr);
  const Judgement opened = HttpClient::Wait(*transfer);
  head.resize(opened.bytes);
  if (!expected_version.empty() && opened.seen.Id() != expected_version) {
    throw Error(ErrorCode::kIo, target.display + " changed since it was first opened: it was " +
                                    expected_version + ", now " + opened.seen.Id() +
                                    ". Nothing of the new version is mixed with what was read "
                                    "of the old one; open it again to read the new version");
  }
  return std::unique_ptr<HttpFile>(
      new HttpFile(std::move(target), std::move(client), opened.seen, std::move(head)));
}

HttpFile::HttpFile(HttpTarget target, std::unique_ptr<HttpClient> client, ObjectVersion version,
                   std::vector<uint8_t> head)
    : target_(std::move(target)), client_(std::move(client)), version_(std::move(version)),
      head_(std::move(head)) {}

void HttpFile::ReadAt(uint64_t offset, std::span<uint8_t> dest) const {
  if (dest.empty()) return;
  if (offset > version_.size || dest.size() > version_.size - offset) {
    const uint64_t end = version_.size;
    throw io::TruncatedError(target_.display, offset, dest.size(), end,
                             offset >= end ? dest.size() : offset + dest.size() - end);
  }
  if (offset + dest.size() <= head_.size()) {
    std::memcpy(dest.data(), head_.data() + offset, dest.size());
    return;
  }
  const auto transfer = client_->Start(RangeAsked{offset, dest.size()}, dest, &version_);
  HttpClient::Wait(*transfer);
}

}  // namespace h5feed::remote
