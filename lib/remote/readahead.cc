// Readahead (readahead.h).
#include "remote/readahead.h"

#include <algorithm>
#include <cstring>

#include "h5feed/error.h"

namespace h5feed::remote {

using Prefetch = RemoteFile::Prefetch;

Readahead::Readahead(HttpClient& client, const ObjectVersion& version, io::InFlightEstimator& link)
    : client_(client), version_(version), link_(link) {}

Readahead::~Readahead() {
  DropAll();
  std::vector<Fetch> waiting;
  {
    std::lock_guard lock(mutex_);
    waiting.swap(abandoned_);
  }
  for (Fetch& fetch : waiting) {
    try {
      HttpClient::Wait(*fetch.transfer);
    } catch (const Error&) {  // cancelled, as asked
    }
  }
}

void Readahead::ReapAbandoned() {
  std::erase_if(abandoned_, [this](const Fetch& fetch) {
    if (!HttpClient::Done(*fetch.transfer)) return false;
    held_ -= fetch.length;
    return true;
  });
}

void Readahead::Abandon(Fetch fetch) {
  client_.Cancel(fetch.transfer);
  abandoned_.push_back(std::move(fetch));
}

Prefetch Readahead::Start(uint64_t offset, uint64_t length) {
  if (length == 0) return Prefetch::kNotNeeded;
  std::lock_guard lock(mutex_);
  ReapAbandoned();
  if (fetches_.contains({offset, length})) return Prefetch::kHeld;
  const uint64_t target = std::min(limit_, link_.InFlightTarget(length));
  if (held_ > 0 && held_ + length > target) return Prefetch::kFull;
  Fetch fetch;
  fetch.bytes = std::make_unique_for_overwrite<uint8_t[]>(length);
  fetch.length = length;
  fetch.transfer = client_.Start(RangeAsked{offset, length},
                                 std::span<uint8_t>(fetch.bytes.get(), length), &version_);
  held_ += length;
  fetches_.emplace(Range{offset, length}, std::move(fetch));
  return Prefetch::kStarted;
}

bool Readahead::Take(uint64_t offset, std::span<uint8_t> dest) {
  Fetch fetch;
  {
    std::lock_guard lock(mutex_);
    auto found = fetches_.find({offset, dest.size()});
    if (found == fetches_.end()) return false;
    fetch = std::move(found->second);
    fetches_.erase(found);
  }
  // The buffer is ours now; its transfer still writes it until it is done.
  const auto release = [&] {
    std::lock_guard lock(mutex_);
    held_ -= fetch.length;
  };
  try {
    HttpClient::Wait(*fetch.transfer);
  } catch (...) {
    release();
    throw;
  }
  std::memcpy(dest.data(), fetch.bytes.get(), dest.size());
  release();
  return true;
}

void Readahead::Drop(uint64_t offset, uint64_t length) {
  std::lock_guard lock(mutex_);
  auto found = fetches_.find({offset, length});
  if (found == fetches_.end()) return;
  Abandon(std::move(found->second));
  fetches_.erase(found);
  ReapAbandoned();
}

void Readahead::DropAll() {
  std::lock_guard lock(mutex_);
  for (auto& [range, fetch] : fetches_) Abandon(std::move(fetch));
  fetches_.clear();
  ReapAbandoned();
}

void Readahead::SetLimit(uint64_t bytes) {
  std::lock_guard lock(mutex_);
  limit_ = bytes;
}

uint64_t Readahead::held_bytes() const {
  std::lock_guard lock(mutex_);
  return held_;
}

}  // namespace h5feed::remote
