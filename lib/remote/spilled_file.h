#pragma once
// A remote file whose reads are kept on a local disk (spill_cache.h): a ReadAt finds its range
// there, or reads it from the remote file and keeps it. The chunk's own checksum is checked by
// the reader as before, and Forget (a range that failed it) removes the kept copy as well, so
// a corrupted copy is fetched again from the source, never served twice.
//
// Thread-safety: as RandomAccessFile (many threads at once). Owns the remote file.

#include <memory>
#include <string>

#include "remote/remote_file.h"
#include "remote/spill_cache.h"

namespace h5feed::remote {

class SpilledFile final : public RemoteFile {
 public:
  // `dir_option`: the option that gave `dir`, as errors name it (SpillCache).
  SpilledFile(std::unique_ptr<RemoteFile> remote, const std::string& dir, uint64_t budget_bytes,
              const std::string& dir_option);

  void ReadAt(uint64_t offset, std::span<uint8_t> dest) const override;
  uint64_t size() const override { return remote_->size(); }
  const std::string& path() const override { return remote_->path(); }
  std::string version() const override { return remote_->version(); }
  Prefetch PrefetchAt(uint64_t offset, uint64_t length) override;
  void DropPrefetch(uint64_t offset, uint64_t length) override {
    remote_->DropPrefetch(offset, length);
  }
  void DropAllPrefetches() override { remote_->DropAllPrefetches(); }
  void LimitPrefetch(uint64_t bytes) override { remote_->LimitPrefetch(bytes); }
  void Forget(uint64_t offset, uint64_t length) override;
  void CancelReads() override { remote_->CancelReads(); }
  void ResumeReads() override { remote_->ResumeReads(); }

  SpillStats spill_stats() const { return spill_->stats(); }

 private:
  const std::unique_ptr<RemoteFile> remote_;
  const std::unique_ptr<SpillCache> spill_;
};

}  // namespace h5feed::remote
