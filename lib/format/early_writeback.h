#pragma once
// Starts writing a file's new bytes to disk as soon as they are written, instead of leaving
// them all to the fsync that ends a conversion or a merge (docs/format.md, "Writing
// protocol", step 6).
//
// Why: left to itself, the kernel lets a large output accumulate in the page cache until its
// dirty-page limits throttle the writer, then the final fsync writes what is left while the
// writer only waits. Asking for each chunk's writeback right after it is written
// (sync_file_range SYNC_FILE_RANGE_WRITE: start, do not wait) keeps the disk busy during the
// copy, so writing and flushing overlap; docs/scale.md has the measurement. The final fsync is
// still what makes the file durable: this only starts the work early.
//
// Best effort: a file system without sync_file_range, or a file that cannot be opened, makes
// Start() do nothing. Owns one read-only file descriptor of the file. Not thread-safe; used by
// the Writer's one thread.

#include <cstdint>
#include <string>

namespace h5feed::format {

class EarlyWriteback {
 public:
  explicit EarlyWriteback(const std::string& path);
  ~EarlyWriteback();
  EarlyWriteback(const EarlyWriteback&) = delete;
  EarlyWriteback& operator=(const EarlyWriteback&) = delete;

  // Starts the writeback of bytes [offset, offset + bytes) of the file.
  void Start(uint64_t offset, uint64_t bytes) noexcept;

 private:
  int fd_ = -1;
};

}  // namespace h5feed::format
