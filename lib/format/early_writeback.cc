#include "format/early_writeback.h"

#include <fcntl.h>
#include <unistd.h>

namespace h5feed::format {

// Writeback works on the file's pages whatever descriptor names it, so a read-only one is
// enough and never writes anything itself.
EarlyWriteback::EarlyWriteback(const std::string& path)
    : fd_(open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}

EarlyWriteback::~EarlyWriteback() {
  if (fd_ >= 0) close(fd_);
}

void EarlyWriteback::Start(uint64_t offset, uint64_t bytes) noexcept {
  if (fd_ < 0 || bytes == 0) return;
  if (sync_file_range(fd_, static_cast<off64_t>(offset), static_cast<off64_t>(bytes),
                      SYNC_FILE_RANGE_WRITE) != 0) {
    close(fd_);  // unsupported here: stop asking
    fd_ = -1;
  }
}

}  // namespace h5feed::format
