#include "sources/read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::converters {
namespace {

// "a FIFO (named pipe)": what a file that is not a regular file is, for the message.
const char* KindOf(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISDIR(mode)) return "a folder";
  return "not a regular file";
}

}  // namespace

void ReadFileInto(const std::string& path, std::vector<uint8_t>& bytes, int64_t limit) {
  // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever, and a folder of
  // images may hold one under an image's name. Reads of regular files ignore the flag.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    throw MakeError(ErrorCode::kCorrupt, "cannot open {}: {}", path, std::strerror(errno));
  }
  struct stat info;
  if (fstat(fd, &info) != 0) {
    int error = errno;
    ::close(fd);
    throw MakeError(ErrorCode::kCorrupt, "cannot stat {}: {}", path, std::strerror(error));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    throw MakeError(ErrorCode::kCorrupt,
                    "{} is {}, not an image file; move it out of the input folder", path,
                    KindOf(info.st_mode));
  }
  int64_t wanted = info.st_size;
  if (limit >= 0) wanted = std::min<int64_t>(wanted, limit);
  bytes.resize(static_cast<size_t>(wanted));
  int64_t done = 0;
  while (done < wanted) {
    ssize_t n = ::pread(fd, bytes.data() + done, static_cast<size_t>(wanted - done), done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int error = n < 0 ? errno : 0;
      ::close(fd);
      throw MakeError(ErrorCode::kCorrupt, "cannot read {}: {}", path,
                      (error ? std::strerror(error) : "file shrank while read"));
    }
    done += n;
  }
  ::close(fd);
}

}  // namespace h5feed::converters
