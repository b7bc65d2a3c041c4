#pragma once
// Disk space reserved for a file ahead of HDF5's own writes to it, so that a full disk is
// found before HDF5 writes, never by one of HDF5's writes failing.
//
// Why: HDF5 1.10.8 cannot recover from a failed write. Once a write fails (ENOSPC, EFBIG),
// the metadata it still has to flush makes H5Fclose fail too; the file then stays open inside
// the library, a second H5Fclose crashes, and so does the library's cleanup when the process
// exits (SIGSEGV in H5F__close_cb, reproduced on Debian bookworm). So the Writer reserves the
// space each next step needs (the chunk plus 64 KiB for HDF5's metadata) before calling HDF5:
// if the reservation fails, h5feed reports kNoSpace while HDF5's state is still clean, and
// closing and removing the temporary file works.
//
// Reserve() preallocates with fallocate(FALLOC_FL_KEEP_SIZE) (the file's size is unchanged,
// so HDF5 sees nothing) and checks the two limits fallocate does not: the process's file-size
// limit (RLIMIT_FSIZE, `ulimit -f`) and the file system's largest file (4 GiB on FAT32). On a
// file system that cannot preallocate (NFSv3, some FUSE), only the limits are checked and a
// full disk is left to HDF5 to find.
//
// Owns one file descriptor of the file. Not thread-safe; used by the Writer's one thread.

#include <cstdint>
#include <string>
#include <string_view>

namespace h5feed::io {

class DiskReservation {
 public:
  // Opens `path` (which must exist) for reserving. Throws Error (kIo, kNotFound) naming it.
  explicit DiskReservation(const std::string& path);
  ~DiskReservation();
  DiskReservation(const DiskReservation&) = delete;
  DiskReservation& operator=(const DiskReservation&) = delete;

  // Makes sure bytes [0, end) of the file can be written. Throws Error(kNoSpace) saying which
  // limit was hit, with `what` (e.g. "writing chunk 12 of /images") and the path.
  void Reserve(uint64_t end, std::string_view what);

  // Gives back the preallocated blocks past the end of the file (at most the last slack), once
  // the file is complete. Best effort: a failure leaves a few unused blocks, nothing more.
  void ReleaseUnused() noexcept;

  uint64_t reserved() const { return reserved_; }
  bool preallocates() const { return preallocates_; }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t reserved_ = 0;
  uint64_t largest_file_ = UINT64_MAX;  // from the file system (FILESIZEBITS)
  bool preallocates_ = true;
};

}  // namespace h5feed::io
