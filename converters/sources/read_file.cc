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

void ReadFileInto(const std::string& path, std::vector<uint8_t>& bytes, int64_t limit) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw MakeError(ErrorCode::kCorrupt, "cannot open {}: {}", path, std::strerror(errno));
  }
  struct stat info;
  if (fstat(fd, &info) != 0) {
    int error = errno;
    ::close(fd);
    throw MakeError(ErrorCode::kCorrupt, "cannot stat {}: {}", path, std::strerror(error));
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
