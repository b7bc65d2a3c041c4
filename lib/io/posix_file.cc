// OpenPosixFile (random_access_file.h): pread(2) on a read-only descriptor.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <limits>

#include "h5feed/error.h"
#include "io/io_errors.h"
#include "io/random_access_file.h"

namespace h5feed::io {
namespace {

// Linux transfers at most 0x7ffff000 bytes per read call (read(2), NOTES); asking for less
// keeps every call within that on any kernel, and the loop below joins the pieces.
constexpr size_t kMaxReadPerCall = size_t{1} << 30;

// Thread-safety: ReadAt only calls pread, which keeps no file position; the descriptor is
// owned and closed by the destructor.
class PosixFile final : public RandomAccessFile {
 public:
  PosixFile(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}
  ~PosixFile() override { ::close(fd_); }
  PosixFile(const PosixFile&) = delete;
  PosixFile& operator=(const PosixFile&) = delete;

  void ReadAt(uint64_t offset, std::span<uint8_t> dest) const override {
    constexpr uint64_t kMaxOffset = static_cast<uint64_t>(std::numeric_limits<off_t>::max());
    if (offset > kMaxOffset || dest.size() > kMaxOffset - offset) {
      // No file this large exists: the offset came from damaged metadata.
      throw TruncatedError(path_, offset, dest.size(), size_, dest.size());
    }
    size_t done = 0;
    while (done < dest.size()) {
      const size_t want = std::min(dest.size() - done, kMaxReadPerCall);
      const ssize_t got =
          ::pread(fd_, dest.data() + done, want, static_cast<off_t>(offset + done));
      if (got < 0) {
        if (errno == EINTR) continue;  // a signal arrived before any byte was read: retry
        throw ReadFailedError(path_, offset, dest.size(), errno);
      }
      if (got == 0) {
        throw TruncatedError(path_, offset, dest.size(), offset + done, dest.size() - done);
      }
      done += static_cast<size_t>(got);
    }
  }

  uint64_t size() const override { return size_; }
  const std::string& path() const override { return path_; }

 private:
  const std::string path_;
  const int fd_;
  const uint64_t size_;  // at open; a file that shrinks later is caught by ReadAt
};

}  // namespace

std::unique_ptr<RandomAccessFile> OpenPosixFile(const std::string& path) {
  int fd = -1;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    const int error_number = errno;
    if (error_number == ENOENT) {
      throw Error(ErrorCode::kNotFound, path + " does not exist");
    }
    throw Error(ErrorCode::kIo, "cannot open " + path + " for reading: " +
                                    ErrnoText(error_number) + " (errno " +
                                    std::to_string(error_number) + ")");
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int error_number = errno;
    ::close(fd);
    throw Error(ErrorCode::kIo, "cannot stat " + path + ": " + ErrnoText(error_number));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    throw Error(ErrorCode::kInvalidArgument,
                path + " is not a regular file (a folder or a device?); give the path of an "
                       "HDF5 file");
  }
  return std::make_unique<PosixFile>(path, fd, static_cast<uint64_t>(info.st_size));
}

}  // namespace h5feed::io
