#include "io/disk_reservation.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "h5feed/error.h"
#include "io/os_error.h"

namespace h5feed::io {

DiskReservation::DiskReservation(const std::string& path) : path_(path) {
  fd_ = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd_ < 0) throw SystemError("opening the file to reserve disk space", path, errno);
  // POSIX FILESIZEBITS: the bits of the largest file size. Linux gives 32 for FAT, whose
  // largest file is 4 GiB - 1, hence 2^bits - 1 and not the signed 2^(bits-1) - 1.
  long bits = fpathconf(fd_, _PC_FILESIZEBITS);
  if (bits > 0 && bits < 64) largest_file_ = (uint64_t{1} << bits) - 1;
  struct stat info {};
  if (fstat(fd_, &info) == 0) reserved_ = static_cast<uint64_t>(info.st_size);
}

DiskReservation::~DiskReservation() {
  if (fd_ >= 0) close(fd_);
}

void DiskReservation::Reserve(uint64_t end, std::string_view what) {
  if (end <= reserved_) return;
  rlimit limit{};
  if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      end > limit.rlim_cur) {
    throw NoSpaceError(what, path_, EFBIG,
                       fmt::format("the file would grow to {} bytes; this process may write "
                                   "files of at most {} bytes (ulimit -f)",
                                   end, limit.rlim_cur));
  }
  if (end > largest_file_) {
    throw NoSpaceError(what, path_, EFBIG,
                       fmt::format("the file would grow to {} bytes; this file system stores "
                                   "files of at most {} bytes",
                                   end, largest_file_));
  }
  if (preallocates_) {
    const off_t offset = static_cast<off_t>(reserved_);
    const off_t length = static_cast<off_t>(end - reserved_);
    int status;
    do {
      status = fallocate(fd_, FALLOC_FL_KEEP_SIZE, offset, length);
    } while (status != 0 && errno == EINTR);
    if (status != 0) {
      if (errno == EOPNOTSUPP || errno == ENOSYS) {
        preallocates_ = false;
      } else {
        throw SystemError(fmt::format("{} (reserving {} bytes of disk space)", what, length), path_,
                          errno);
      }
    }
  }
  reserved_ = end;
}

void DiskReservation::ReleaseUnused() noexcept {
  struct stat info {};
  // Truncating to the current size frees the blocks preallocated past the end of the file
  // (ext4, XFS, tmpfs) and changes nothing else.
  if (fd_ >= 0 && fstat(fd_, &info) == 0) (void)!ftruncate(fd_, info.st_size);
}

}  // namespace h5feed::io
