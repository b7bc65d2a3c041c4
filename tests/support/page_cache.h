#pragma once
// For tests of reading from the disk: dropping a file from the page cache, measuring how much
// of it the page cache holds (mincore), and whether its file system reads with O_DIRECT. A
// file system that keeps everything cached (tmpfs) or refuses O_DIRECT makes the tests that
// need it say so and skip.

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace h5feed::testing {

// The share of `path`'s pages in the page cache, or of its pages [first, first + count).
inline double ResidentShare(const std::string& path, uint64_t first = 0, uint64_t count = 0) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  struct stat info {};
  REQUIRE(::fstat(fd, &info) == 0);
  const auto size = static_cast<size_t>(info.st_size);
  if (size == 0) {
    ::close(fd);
    return 0;
  }
  void* base = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  REQUIRE(base != MAP_FAILED);
  std::vector<unsigned char> pages((size + 4095) / 4096);
  REQUIRE(::mincore(base, size, pages.data()) == 0);
  ::munmap(base, size);
  if (count == 0) count = pages.size() - first;
  uint64_t resident = 0;
  for (uint64_t p = first; p < first + count && p < pages.size(); ++p) resident += pages[p] & 1;
  return static_cast<double>(resident) / static_cast<double>(count);
}

// Writes `path` back and asks the kernel to drop it from the page cache. Whether it did (tmpfs
// keeps every page).
inline bool DropFromPageCache(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
  return ResidentShare(path) == 0;
}

// Whether the file system of `path` (an existing file) opens it with O_DIRECT.
inline bool ReadsDirect(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

}  // namespace h5feed::testing
