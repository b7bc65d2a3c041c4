#pragma once
// Whether a read-only open takes HDF5's shared file lock (flock(LOCK_SH) in HDF5 1.10).
//
// The lock guards against reading a file that an HDF5 writer holds open for writing (it holds
// flock(LOCK_EX) until it closes): its metadata may be half-written. Some file systems (NFS
// without lockd, some Lustre and FUSE mounts) refuse locks altogether (ENOLCK, ENOSYS,
// EOPNOTSUPP); reading there needs the lock turned off. docs/reliability.md, "File locking".
//
// HDF5's own environment variable HDF5_USE_FILE_LOCKING=FALSE turns locking off whatever is
// chosen here (HDF5 1.10.7+ lets it override the setting).

#include <string_view>

namespace h5feed {

enum class FileLocking {
  // Take the shared lock; when the file system refuses locks, open without and say so in a
  // warning. A lock held by a writer is still an error: that file is being written.
  kAuto,
  // Take the shared lock; any failure to take it is an error.
  kOn,
  // Never lock (for file systems known to lack locks, or files known not to change).
  kOff,
};

// "auto", "on", "off": the words of the command line's --file-locking and of Python's
// file_locking.
std::string_view ToString(FileLocking locking) noexcept;
// The inverse of ToString, in any case. Throws Error(kInvalidArgument) listing the words.
FileLocking ParseFileLocking(std::string_view text);

}  // namespace h5feed
