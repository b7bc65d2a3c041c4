#pragma once
// How much of a file the kernel's page cache holds, and asking it to drop the file: what a
// cold-cache benchmark needs. Linux only (mincore, posix_fadvise).
//
// posix_fadvise(POSIX_FADV_DONTNEED) is advice: the kernel skips pages that are dirty (not yet
// written back), mapped by a process, or locked, and some filesystems (tmpfs, where the page
// cache is the only copy) keep everything. So the eviction is checked with mincore() and its
// result reported, never assumed.

#include <cstdint>
#include <string>

namespace h5feed::bench {

struct Residency {
  uint64_t resident_pages = 0;
  uint64_t total_pages = 0;
  double fraction() const {
    return total_pages > 0 ? static_cast<double>(resident_pages) / total_pages : 0;
  }
};

// The pages of `path` in the page cache now (mmap + mincore; nothing is read). Throws
// Error(kIo) naming the file when it cannot be opened or mapped.
Residency PageCacheResidency(const std::string& path);

struct Eviction {
  Residency before;
  Residency after;
  // At most this share of the file may stay resident for the run to count as cold.
  static constexpr double kColdThreshold = 0.05;
  bool took_effect() const { return after.fraction() <= kColdThreshold; }
  // One line for people: "dropped from the page cache: 100% -> 0% resident", or why not.
  std::string Describe() const;
};

// MemAvailable of /proc/meminfo in bytes: the kernel's estimate of the memory that can be given
// to new work without swapping, page cache it can drop included, so the most of a file that can
// stay cached beside what runs now. 0 when it cannot be read (not Linux, or a kernel before 3.14).
uint64_t MemAvailableBytes();

// Asks the kernel to drop `path` from the page cache and measures the residency before and
// after. Throws Error(kIo) when the file cannot be opened.
Eviction EvictFromPageCache(const std::string& path);

}  // namespace h5feed::bench
