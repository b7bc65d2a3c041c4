#include "bench/page_cache.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <vector>

#include "h5feed/error.h"
#include "support/temp_folder.h"

namespace h5feed::bench {
namespace {

// A file of `bytes` bytes, written and fsync'ed (dirty pages would not be dropped), then read
// once so that its pages are in the page cache.
std::string CachedFile(const testing::TempFolder& folder, size_t bytes) {
  const std::string path = folder / "data.bin";
  const int fd = open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
  REQUIRE(fd >= 0);
  std::vector<char> data(bytes, 'x');
  REQUIRE(write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size()));
  REQUIRE(fsync(fd) == 0);
  close(fd);
  const int rd = open(path.c_str(), O_RDONLY);
  REQUIRE(read(rd, data.data(), data.size()) == static_cast<ssize_t>(data.size()));
  close(rd);
  return path;
}

TEST_CASE("a file just read is resident; after the eviction it is not, and mincore says so") {
  testing::TempFolder folder;
  const std::string path = CachedFile(folder, size_t{4} << 20);
  const Residency resident = PageCacheResidency(path);
  CHECK(resident.total_pages == (size_t{4} << 20) / static_cast<size_t>(sysconf(_SC_PAGESIZE)));
  CHECK(resident.fraction() > 0.5);

  const Eviction eviction = EvictFromPageCache(path);
  CHECK(eviction.before.fraction() > 0.5);
  if (eviction.took_effect()) {
    CHECK(eviction.after.fraction() <= Eviction::kColdThreshold);
    CHECK(eviction.Describe().find("did not take effect") == std::string::npos);
  } else {
    // tmpfs keeps its pages whatever the advice: the run must then be reported as not cold.
    MESSAGE("the filesystem under $TMPDIR ignored POSIX_FADV_DONTNEED");
    CHECK(eviction.Describe().find("did not take effect") != std::string::npos);
  }
  CHECK(PageCacheResidency(path).resident_pages == eviction.after.resident_pages);
}

TEST_CASE("an eviction that leaves pages resident is described as not cold") {
  Eviction eviction;
  eviction.before = {100, 100};
  eviction.after = {90, 100};
  CHECK_FALSE(eviction.took_effect());
  CHECK(eviction.Describe().find("100% of the file resident, 90% after") != std::string::npos);
  CHECK(eviction.Describe().find("did not take effect") != std::string::npos);
}

TEST_CASE("an empty file has no pages; a missing file is an Io error naming it") {
  testing::TempFolder folder;
  const std::string empty = CachedFile(folder, 0);
  CHECK(PageCacheResidency(empty).total_pages == 0);
  CHECK_THROWS_WITH_AS(PageCacheResidency(folder / "missing.h5"), doctest::Contains("missing.h5"),
                       Error);
}

}  // namespace
}  // namespace h5feed::bench
