// Page-cache residency and eviction (page_cache.h).

#include "page_cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::bench {
namespace {

// Closes the descriptor on every path out.
class Descriptor {
 public:
  explicit Descriptor(const std::string& path) : fd_(open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) {
      throw MakeError(ErrorCode::kIo, "cannot open {}: {}", path, std::strerror(errno));
    }
  }
  ~Descriptor() { close(fd_); }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

Residency Measure(int fd, const std::string& path) {
  struct stat info {};
  if (fstat(fd, &info) != 0) {
    throw MakeError(ErrorCode::kIo, "cannot stat {}: {}", path, std::strerror(errno));
  }
  const auto page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const auto size = static_cast<uint64_t>(info.st_size);
  Residency residency;
  residency.total_pages = (size + page - 1) / page;
  if (size == 0) return residency;
  // Mapping a file reads nothing; mincore then reports which of its pages are cached.
  void* map = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) {
    throw MakeError(ErrorCode::kIo, "cannot map {} to check its page-cache residency: {}", path,
                    std::strerror(errno));
  }
  std::vector<unsigned char> resident(residency.total_pages);
  const int status = mincore(map, size, resident.data());
  const int error = errno;
  munmap(map, size);
  if (status != 0) {
    throw MakeError(ErrorCode::kIo, "mincore on {} failed: {}", path, std::strerror(error));
  }
  for (unsigned char flags : resident) residency.resident_pages += flags & 1u;
  return residency;
}

std::string Percent(double fraction) {
  char text[16];
  std::snprintf(text, sizeof text, "%.0f%%", 100 * fraction);
  return text;
}

}  // namespace

Residency PageCacheResidency(const std::string& path) {
  Descriptor fd(path);
  return Measure(fd.get(), path);
}

Eviction EvictFromPageCache(const std::string& path) {
  Descriptor fd(path);
  Eviction eviction;
  eviction.before = Measure(fd.get(), path);
  // The advice's return value says only whether the arguments were valid; mincore says what
  // it did.
  posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
  eviction.after = Measure(fd.get(), path);
  return eviction;
}

std::string Eviction::Describe() const {
  std::string line = "page cache: " + Percent(before.fraction()) + " of the file resident, " +
                     Percent(after.fraction()) + " after posix_fadvise(DONTNEED)";
  if (!took_effect()) {
    line +=
        "; the eviction did not take effect (pages dirty, mapped or locked by another "
        "process, or a filesystem such as tmpfs that keeps them), so this run is not cold";
  }
  return line;
}

uint64_t MemAvailableBytes() {
  std::FILE* meminfo = std::fopen("/proc/meminfo", "r");
  if (meminfo == nullptr) return 0;
  char line[256];
  unsigned long long kib = 0;
  bool found = false;
  while (!found && std::fgets(line, sizeof line, meminfo) != nullptr) {
    found = std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1;
  }
  std::fclose(meminfo);
  return found ? static_cast<uint64_t>(kib) * 1024 : 0;
}

}  // namespace h5feed::bench
