// SpilledFile (spilled_file.h).
#include "remote/spilled_file.h"

namespace h5feed::remote {

SpilledFile::SpilledFile(std::unique_ptr<RemoteFile> remote, const std::string& dir,
                         uint64_t budget_bytes, const std::string& dir_option)
    : remote_(std::move(remote)),
      spill_(std::make_unique<SpillCache>(dir, budget_bytes, remote_->path(), remote_->version(),
                                          dir_option)) {}

void SpilledFile::ReadAt(uint64_t offset, std::span<uint8_t> dest) const {
  if (dest.empty()) return;
  if (spill_->Read(offset, dest)) {
    remote_->DropPrefetch(offset, dest.size());  // hinted before it was kept: not needed
    return;
  }
  remote_->ReadAt(offset, dest);
  spill_->Write(offset, dest);
}

SpilledFile::Prefetch SpilledFile::PrefetchAt(uint64_t offset, uint64_t length) {
  if (spill_->Contains(offset, length)) return Prefetch::kHeld;
  return remote_->PrefetchAt(offset, length);
}

void SpilledFile::Forget(uint64_t offset, uint64_t length) {
  spill_->Remove(offset, length);
  remote_->Forget(offset, length);
}

}  // namespace h5feed::remote
