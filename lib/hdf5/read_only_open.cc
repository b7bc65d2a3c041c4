#include "hdf5/read_only_open.h"

#include <cerrno>

#include "hdf5/error.h"
#include "make_error.h"

namespace h5feed::hdf5 {
namespace {

// H5FD_sec2_lock's message when flock fails (HDF5 1.10.7-1.14); the errno follows it.
constexpr std::string_view kLockFailure = "unable to lock file";

struct Attempt {
  File file;
  std::string stack;     // HDF5's error stack when the open failed
  int error_number = 0;  // the errno recorded in it
};

Attempt OpenWith(const std::string& path, bool use_locking) {
  Attempt attempt;
  PropertyList access(H5Pcreate(H5P_FILE_ACCESS));
  // ignore_when_disabled = true: HDF5's own tolerance of ENOSYS is kept; ENOLCK and
  // EOPNOTSUPP (NFS without lockd) are handled by the caller.
  if (!access || H5Pset_file_locking(access.get(), use_locking, true) < 0) {
    throw StackError(ErrorCode::kInternal, "preparing to open", path);
  }
  attempt.file = File(H5Fopen(path.c_str(), H5F_ACC_RDONLY, access.get()));
  if (!attempt.file) {  // read the stack now: closing `access` clears it
    attempt.stack = ErrorStackText();
    attempt.error_number = ErrorStackErrno();
  }
  return attempt;
}

}  // namespace

bool LocksRefusedByFileSystem(int error_number) {
  return error_number == ENOLCK || error_number == ENOSYS || error_number == EOPNOTSUPP;
}

ReadOnlyFile OpenReadOnlyFile(const std::string& path, FileLocking locking) {
  ReadOnlyFile result;
  result.locked = locking != FileLocking::kOff;
  Attempt first = OpenWith(path, result.locked);
  if (first.file) {
    result.file = std::move(first.file);
    return result;
  }
  const bool lock_failed = first.stack.find(kLockFailure) != std::string::npos;
  const int error_number = first.error_number;
  if (lock_failed && (error_number == EWOULDBLOCK || error_number == EAGAIN)) {
    throw MakeError(
        ErrorCode::kIo,
        "{} is locked by another process that has it open for writing with HDF5 (flock LOCK_EX): "
        "its contents may be half-written. Wait until that process closes it. Only if you know "
        "nothing writes it (a stale lock on a network file system), open it with file locking off "
        "(FileLocking::kOff, --file-locking off, HDF5_USE_FILE_LOCKING=FALSE)",
        path);
  }
  std::string stack = first.stack;
  if (lock_failed && LocksRefusedByFileSystem(error_number)) {
    if (locking == FileLocking::kOn) {
      throw MakeError(
          ErrorCode::kIo,
          "the file system of {} refuses file locks ({}); open it with file locking off or auto "
          "(FileLocking::kOff or kAuto, --file-locking off|auto, HDF5_USE_FILE_LOCKING=FALSE)",
          path, first.stack);
    }
    Attempt unlocked = OpenWith(path, false);
    if (unlocked.file) {
      result.file = std::move(unlocked.file);
      result.locked = false;
      result.note = "the file system of " + path + " refuses file locks (errno " +
                    std::to_string(error_number) +
                    "): opened it read-only without HDF5's lock. A process writing it at the "
                    "same time would go unnoticed";
      return result;
    }
    stack = unlocked.stack;
  }
  throw MakeError(
      ErrorCode::kCorrupt,
      "{} cannot be opened by HDF5: truncated or not an HDF5 file; copy or convert it again (HDF5: "
      "{})",
      path, stack);
}

}  // namespace h5feed::hdf5
