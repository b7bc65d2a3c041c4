// A local file read ahead (io/local_file.h, disk_readahead.h): through the page cache and with
// O_DIRECT, ranges asked for ahead are what their reads then get, at any alignment; what is
// held ahead stays within the limit; a direct file leaves the page cache alone.

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "h5feed/error.h"
#include "io/aligned_buffer.h"
#include "io/local_file.h"
#include "support/caught_error.h"
#include "support/page_cache.h"
#include "support/temp_folder.h"

namespace h5feed::io {
namespace {

using testing::TempFolder;

uint8_t Byte(uint64_t i) { return static_cast<uint8_t>((i * 131 + i / 256) % 256); }

std::string WritePattern(const TempFolder& folder, const std::string& name, uint64_t size) {
  std::string path = folder / name;
  std::vector<char> bytes(size);
  for (uint64_t i = 0; i < size; ++i) bytes[i] = static_cast<char>(Byte(i));
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
  return path;
}

bool Same(std::span<const uint8_t> got, uint64_t offset) {
  for (uint64_t i = 0; i < got.size(); ++i) {
    if (got[i] != Byte(offset + i)) return false;
  }
  return true;
}

// `path` (of `size` bytes) opened and read whole, so that the page cache holds it.
std::unique_ptr<LocalFile> OpenCached(const std::string& path, uint64_t size) {
  auto file = OpenLocalFile(path, {});
  std::vector<uint8_t> all(size);
  file->ReadAt(0, all);
  REQUIRE(file->InPageCache());
  return file;
}

// Ranges that start and end on and off 4 KiB boundaries, up to the file's last byte.
std::vector<std::pair<uint64_t, uint64_t>> Ranges(uint64_t size) {
  return {{0, 1},         {0, 4096},     {1, 10},         {4095, 2},           {4096, 8192},
          {5000, 70'000}, {12'288, 333}, {size - 10, 10}, {size - 5000, 5000}, {100'000, 200'001}};
}

TEST_CASE("an aligned enclosing range starts and ends on 4 KiB and holds the range") {
  const AlignedRange a = EnclosingAlignedRange(5000, 100);
  CHECK(a.offset == 4096);
  CHECK(a.length == 4096);
  CHECK(a.skip == 904);
  const AlignedRange b = EnclosingAlignedRange(8192, 8192);
  CHECK(b.offset == 8192);
  CHECK(b.length == 8192);
  CHECK(b.skip == 0);
  const AlignedRange c = EnclosingAlignedRange(4095, 2);
  CHECK(c.offset == 0);
  CHECK(c.length == 8192);
  AlignedBuffer buffer(3 * 4096);
  CHECK(reinterpret_cast<uintptr_t>(buffer.data()) % kDirectAlignment == 0);
}

TEST_CASE("a direct file reads and hands over exactly the bytes at any offset and length") {
  TempFolder folder;
  const uint64_t size = 3 * 1024 * 1024 + 17;  // its end is off a 4 KiB boundary
  const std::string path = WritePattern(folder, "data.bin", size);
  if (!testing::ReadsDirect(path)) {
    MESSAGE("the file system of " << folder.path() << " refuses O_DIRECT: nothing to test here");
    CHECK(testing::CodeOf([&] { OpenLocalFile(path, {.direct = true}); }) ==
          ErrorCode::kUnsupported);
    return;
  }
  auto file = OpenLocalFile(path, {.direct = true});
  CHECK(file->direct());
  CHECK(file->size() == size);
  for (const auto& range : Ranges(size)) {
    // Named copies: clang 14 cannot capture a structured binding (CAPTURE's lambda).
    const auto offset = range.first;
    const auto length = range.second;
    CAPTURE(offset);
    CAPTURE(length);
    std::vector<uint8_t> read(length);
    file->ReadAt(offset, read);
    CHECK(Same(read, offset));
    std::unique_ptr<MappedRange> handed = file->MapAt(offset, length);
    REQUIRE(handed != nullptr);  // a direct file's ranges are always handed over
    CHECK(Same(handed->bytes(), offset));
  }
  std::vector<uint8_t> past(100);
  CHECK(testing::CodeOf([&] { file->ReadAt(size - 50, past); }) == ErrorCode::kCorrupt);
  CHECK(file->MapAt(size - 5, 10) == nullptr);  // left to ReadAt, which words the truncation
}

TEST_CASE("ranges read ahead are what their reads then get, through the page cache and direct") {
  TempFolder folder;
  const uint64_t size = 3 * 1024 * 1024 + 17;
  const std::string path = WritePattern(folder, "data.bin", size);
  for (bool direct : {false, true}) {
    CAPTURE(direct);
    if (direct && !testing::ReadsDirect(path)) continue;
    if (!testing::DropFromPageCache(path)) {
      MESSAGE("the page cache keeps " << path << " (tmpfs?): reading ahead is not tested here");
      return;
    }
    auto file = OpenLocalFile(path, {.direct = direct});
    file->LimitPrefetch(64 << 20);
    const auto ranges = Ranges(size);
    for (const auto& [offset, length] : ranges) {
      const Ahead ahead = file->PrefetchAt(offset, length);
      CHECK((ahead == Ahead::kStarted || ahead == Ahead::kFull));
    }
    CHECK(file->PrefetchAt(size, 10) == Ahead::kNotNeeded);
    CHECK(file->PrefetchAt(10, 0) == Ahead::kNotNeeded);
    // Every other range mapped (handed over, or used in place), the rest read.
    bool map = false;
    for (const auto& range : ranges) {
      const auto offset = range.first;  // clang 14 cannot CAPTURE a structured binding
      const auto length = range.second;
      CAPTURE(offset);
      CAPTURE(length);
      map = !map;
      if (map) {
        if (std::unique_ptr<MappedRange> mapped = file->MapAt(offset, length)) {
          CHECK(Same(mapped->bytes(), offset));
          continue;
        }
      }
      std::vector<uint8_t> read(length);
      file->ReadAt(offset, read);
      CHECK(Same(read, offset));
    }
  }
}

TEST_CASE("bytes held ahead stay within the limit, and a dropped range is read as any other") {
  TempFolder folder;
  const uint64_t size = 4 << 20;
  const std::string path = WritePattern(folder, "data.bin", size);
  for (bool direct : {false, true}) {
    CAPTURE(direct);
    if (direct && !testing::ReadsDirect(path)) continue;
    if (!testing::DropFromPageCache(path)) return;  // tmpfs: everything is cached
    auto file = OpenLocalFile(path, {.direct = direct});
    file->LimitPrefetch(3 * 65'536);
    // The in-flight target (measured as ranges arrive) may allow fewer; the limit never more.
    CHECK(file->PrefetchAt(0, 65'536) == Ahead::kStarted);
    CHECK(file->PrefetchAt(0, 65'536) == Ahead::kHeld);
    int started = 1;
    for (uint64_t r = 1; r < 10; ++r)
      started += file->PrefetchAt(r * 65'536, 65'536) == Ahead::kStarted;
    CHECK(started >= 2);
    CHECK(started <= 3);
    file->DropPrefetch(65'536, 65'536);
    std::vector<uint8_t> read(65'536);
    file->ReadAt(65'536, read);  // dropped: read as it lies
    CHECK(Same(read, 65'536));
    file->ReadAt(0, read);  // taken: no longer held
    CHECK(Same(read, 0));
    CHECK(file->PrefetchAt(0, 65'536) != Ahead::kHeld);
    file->DropAllPrefetches();
    CHECK(file->PrefetchAt(327'680, 65'536) == Ahead::kStarted);
    // One range larger than the limit is still read ahead, alone.
    file->DropAllPrefetches();
    CHECK(file->PrefetchAt(1 << 20, 1 << 20) == Ahead::kStarted);
    CHECK(file->PrefetchAt(2 << 20, 4096) == Ahead::kFull);
    std::vector<uint8_t> large(1 << 20);
    file->ReadAt(1 << 20, large);
    CHECK(Same(large, 1 << 20));
  }
}

TEST_CASE("the page cache's own ranges are held as they are, without reading ahead") {
  TempFolder folder;
  const uint64_t size = 1 << 20;
  const std::string path = WritePattern(folder, "data.bin", size);
  auto file = OpenCached(path, size);
  file->LimitPrefetch(3 * 65'536);
  CHECK(file->PrefetchAt(0, 65'536) == Ahead::kStarted);
  CHECK(file->PrefetchAt(65'536, 65'536) == Ahead::kStarted);
  CHECK(file->PrefetchAt(131'072, 65'536) == Ahead::kStarted);
  CHECK(file->PrefetchAt(196'608, 65'536) == Ahead::kFull);  // the walk stops at the limit
  std::unique_ptr<MappedRange> mapped = file->MapAt(0, 65'536);
  REQUIRE(mapped != nullptr);
  CHECK(Same(mapped->bytes(), 0));
  if (testing::DropFromPageCache(path)) CHECK_FALSE(file->InPageCache());
}

TEST_CASE("ranges that arrived wait for their reads within the limit, not the in-flight target") {
  // The in-flight target counts what the device has to serve: before anything is measured,
  // eight requests. Ranges already there take none of it, so a reader slower than the disk
  // holds the ranges it reads next and still keeps the device's queue full.
  TempFolder folder;
  const uint64_t size = 4 << 20;
  const std::string path = WritePattern(folder, "data.bin", size);
  auto file = OpenCached(path, size);  // every range has arrived as it is asked for
  file->LimitPrefetch(40 * 65'536);
  for (uint64_t r = 0; r < 40; ++r) {
    CAPTURE(r);
    CHECK(file->PrefetchAt(r * 65'536, 65'536) == Ahead::kStarted);
  }
  CHECK(file->PrefetchAt(40 * 65'536, 65'536) == Ahead::kFull);
  std::vector<uint8_t> read(65'536);
  file->ReadAt(0, read);  // taken: room for one more
  CHECK(Same(read, 0));
  CHECK(file->PrefetchAt(40 * 65'536, 65'536) == Ahead::kStarted);
}

TEST_CASE("reading with O_DIRECT leaves the file out of the page cache") {
  TempFolder folder;
  const uint64_t size = 2 << 20;
  const std::string path = WritePattern(folder, "data.bin", size);
  if (!testing::ReadsDirect(path) || !testing::DropFromPageCache(path)) {
    MESSAGE("O_DIRECT or dropping pages is not available in " << folder.path());
    return;
  }
  auto file = OpenLocalFile(path, {.direct = true});
  CHECK_FALSE(file->InPageCache());
  file->LimitPrefetch(1 << 20);
  for (uint64_t offset = 0; offset < size; offset += 300'000) {
    file->PrefetchAt(offset, std::min<uint64_t>(300'000, size - offset));
  }
  std::vector<uint8_t> read(300'000);
  for (uint64_t offset = 0; offset < size; offset += 300'000) {
    std::span<uint8_t> part(read.data(), std::min<uint64_t>(300'000, size - offset));
    file->ReadAt(offset, part);
    CHECK(Same(part, offset));
  }
  CHECK(testing::ResidentShare(path) == 0);
  // Through the page cache, the same reads leave it there.
  auto cached = OpenLocalFile(path, {});
  std::vector<uint8_t> all(size);
  cached->ReadAt(0, all);
  CHECK(testing::ResidentShare(path) == 1);
}

TEST_CASE("reads, reads ahead and drops from many threads at once get each range's bytes") {
  TempFolder folder;
  const uint64_t size = 8 << 20;
  const std::string path = WritePattern(folder, "data.bin", size);
  for (bool direct : {false, true}) {
    CAPTURE(direct);
    if (direct && !testing::ReadsDirect(path)) continue;
    testing::DropFromPageCache(path);
    auto file = OpenLocalFile(path, {.direct = direct});
    file->LimitPrefetch(2 << 20);
    constexpr uint64_t kRange = 100'003;  // off every boundary
    const uint64_t ranges = size / kRange;
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        std::vector<uint8_t> got(kRange);
        for (uint64_t r = static_cast<uint64_t>(t); r < ranges; r += 4) {
          // Ask ahead for a few ranges, drop one, read this one: loads and the walker at once.
          for (uint64_t a = r + 1; a < std::min(ranges, r + 6); ++a)
            file->PrefetchAt(a * kRange, kRange);
          if (r % 3 == 0) file->DropPrefetch((r + 2) * kRange, kRange);
          if (r % 2 == 0) {
            std::unique_ptr<MappedRange> mapped = file->MapAt(r * kRange, kRange);
            if (mapped) {
              wrong += !Same(mapped->bytes(), r * kRange);
              continue;
            }
          }
          file->ReadAt(r * kRange, got);
          wrong += !Same(got, r * kRange);
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    CHECK(wrong == 0);
  }
}

}  // namespace
}  // namespace h5feed::io
