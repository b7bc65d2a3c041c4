#pragma once
// Ranges of a remote object fetched ahead of their reads (RemoteFile::PrefetchAt): each
// is one range request started at once into a buffer of its own; the ReadAt of exactly that
// range takes its bytes (waiting for them if they are still on their way) instead of asking
// the server itself. What is held at once (on its way or waiting to be read) stays within
// the link's in-flight target (io/in_flight_estimator.h) and the limit the reader grants.
//
// Thread-safety: every member may be called from many threads at once (internal mutex; waits
// happen outside it). Borrows the client, which must outlive it; the destructor cancels what
// is on its way and waits for it.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <utility>
#include <vector>

#include "io/in_flight_estimator.h"
#include "remote/http_client.h"
#include "remote/remote_file.h"
#include "remote/response_check.h"

namespace h5feed::remote {

class Readahead {
 public:
  Readahead(HttpClient& client, const ObjectVersion& version, io::InFlightEstimator& link);
  ~Readahead();
  Readahead(const Readahead&) = delete;
  Readahead& operator=(const Readahead&) = delete;

  RemoteFile::Prefetch Start(uint64_t offset, uint64_t length);
  // Whether [offset, offset + dest.size()) was prefetched: then its bytes are in `dest` (after
  // waiting for them), and it is no longer held. Throws what fetching it threw.
  bool Take(uint64_t offset, std::span<uint8_t> dest);
  void Drop(uint64_t offset, uint64_t length);
  void DropAll();
  void SetLimit(uint64_t bytes);

  uint64_t held_bytes() const;

 private:
  struct Fetch {
    std::shared_ptr<Transfer> transfer;
    std::unique_ptr<uint8_t[]> bytes;
    uint64_t length = 0;
  };
  using Range = std::pair<uint64_t, uint64_t>;  // offset, length

  // Under mutex_: cancels `fetch` and keeps its buffer until the transfer is done.
  void Abandon(Fetch fetch);
  void ReapAbandoned();

  HttpClient& client_;
  const ObjectVersion& version_;
  io::InFlightEstimator& link_;

  mutable std::mutex mutex_;
  // State below is protected by mutex_.
  std::map<Range, Fetch> fetches_;
  std::vector<Fetch> abandoned_;  // cancelled, their buffers written until the transfer ends
  uint64_t held_ = 0;             // bytes of fetches_ and abandoned_
  uint64_t limit_ = uint64_t{256} << 20;
};

}  // namespace h5feed::remote
