#pragma once
// A remote object read as an io::RandomAccessFile: every ReadAt is one HTTP range request
// (HttpClient), many of them in flight at once from the reader's threads, outside HDF5's
// lock. The object's version (ETag, else Last-Modified, and size) is pinned when it is opened:
// each request names it (If-Match) and each response is checked against it, so bytes of a
// replaced object are never mixed with what was read before; the reader gets an Error that
// says it changed. PrefetchAt fetches ranges ahead of their reads (readahead.h), as many at
// once as the link's measured bandwidth x round trip asks for (io/in_flight_estimator.h).
//
// Thread-safety: ReadAt may be called from many threads at once (RandomAccessFile's contract).

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "h5feed/remote_options.h"
#include "io/in_flight_estimator.h"
#include "remote/http_client.h"
#include "remote/readahead.h"
#include "remote/remote_file.h"
#include "remote/response_check.h"

namespace h5feed::remote {

// Where requests go and how they are signed (for s3://, s3_location.h resolves them).
struct HttpTarget {
  std::string url;      // with a pre-signed URL's query
  std::string display;  // for messages (Location::display)
  RequestAuth auth;
};

class HttpFile final : public RemoteFile {
 public:
  // Opens the object with one request, for its first `head_bytes` bytes, which are kept (an
  // HDF5 file's superblock and root group lie there). `expected_version` (ObjectVersion::Id of
  // an earlier open, "" for none): the object must still be that version, else
  // Error(kIo) says it changed. Throws what the request threw (response_check.h): kNotFound
  // for 404, kIo for 403 and a network that fails every attempt, kUnsupported for a server
  // that ignores Range requests. An empty object opens, with size() 0.
  static std::unique_ptr<HttpFile> Open(HttpTarget target, const RemoteOptions& options,
                                        const std::string& expected_version,
                                        uint64_t head_bytes = kDefaultHeadBytes);

  // An HDF5 file's first block for the range driver (hdf5/range_driver.h, kBlockBytes).
  static constexpr uint64_t kDefaultHeadBytes = 256 << 10;

  void ReadAt(uint64_t offset, std::span<uint8_t> dest) const override;
  uint64_t size() const override { return version_.size; }
  const std::string& path() const override { return target_.display; }
  std::string version() const override { return version_.Id(); }
  Prefetch PrefetchAt(uint64_t offset, uint64_t length) override;
  void DropPrefetch(uint64_t offset, uint64_t length) override;
  void DropAllPrefetches() override;
  void LimitPrefetch(uint64_t bytes) override;
  void Forget(uint64_t offset, uint64_t length) override;
  void CancelReads() override { client_->Interrupt(); }
  void ResumeReads() override { client_->Resume(); }

  const ObjectVersion& object_version() const { return version_; }
  const io::InFlightEstimator& link() const { return *link_; }

 private:
  HttpFile(HttpTarget target, std::unique_ptr<io::InFlightEstimator> link,
           std::unique_ptr<HttpClient> client, ObjectVersion version, std::vector<uint8_t> head);

  const HttpTarget target_;
  const std::unique_ptr<io::InFlightEstimator> link_;  // fed by client_'s transfers
  const std::unique_ptr<HttpClient> client_;
  const ObjectVersion version_;
  const std::vector<uint8_t> head_;       // the object's first bytes, read at open
  std::atomic<bool> head_trusted_{true};  // false once Forget named bytes of it
  // ReadAt takes its ranges from here. Last: it cancels its transfers before client_ goes.
  mutable Readahead readahead_;
};

}  // namespace h5feed::remote
