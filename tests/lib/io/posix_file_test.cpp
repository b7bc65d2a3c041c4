#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "h5feed/error.h"
#include "io/random_access_file.h"
#include "support/caught_error.h"
#include "support/temp_folder.h"

namespace h5feed::io {
namespace {

using testing::TempFolder;

// Byte i of every test file: a pattern that differs from its neighbours.
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

using testing::CaughtError;

TEST_CASE("a posix file reads exactly the bytes at any offset and knows its size") {
  TempFolder folder;
  const uint64_t size = 3 * 1024 * 1024 + 17;
  auto file = OpenPosixFile(WritePattern(folder, "data.bin", size));
  CHECK(file->size() == size);
  CHECK(file->path() == folder / "data.bin");
  for (uint64_t offset : {uint64_t{0}, uint64_t{1}, uint64_t{4095}, uint64_t{1} << 20, size - 10}) {
    std::vector<uint8_t> got(10);
    file->ReadAt(offset, got);
    for (uint64_t i = 0; i < got.size(); ++i) CHECK(got[i] == Byte(offset + i));
  }
  std::vector<uint8_t> all(size);
  file->ReadAt(0, all);
  bool same = true;
  for (uint64_t i = 0; i < size; ++i) same = same && all[i] == Byte(i);
  CHECK(same);
  std::vector<uint8_t> none;
  file->ReadAt(size, none);  // an empty read at the end is no error
}

TEST_CASE("reads from several threads at once return each thread's own bytes") {
  TempFolder folder;
  const uint64_t size = 1 << 20;
  auto file = OpenPosixFile(WritePattern(folder, "data.bin", size));
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<uint8_t> got(4096 + static_cast<size_t>(t));
      for (uint64_t offset = static_cast<uint64_t>(t); offset + got.size() <= size;
           offset += 9973) {
        file->ReadAt(offset, got);
        for (uint64_t i = 0; i < got.size(); ++i) wrong[t] += got[i] != Byte(offset + i);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(wrong == std::vector<int>(4, 0));
}

TEST_CASE("a read past the end of the file says where the file ends and how much is missing") {
  TempFolder folder;
  auto file = OpenPosixFile(WritePattern(folder, "short.bin", 1000));
  std::vector<uint8_t> got(100);
  Error e = CaughtError([&] { file->ReadAt(950, got); });
  CHECK(e.code() == ErrorCode::kCorrupt);
  const std::string message = e.what();
  CHECK(message.find(folder / "short.bin") != std::string::npos);
  CHECK(message.find("file ends at byte 1000, expected 50 more") != std::string::npos);
  CHECK(message.find("truncated?") != std::string::npos);
  // The bytes that exist were delivered before the end was found.
  for (size_t i = 0; i < 50; ++i) CHECK(got[i] == Byte(950 + i));

  Error beyond = CaughtError([&] { file->ReadAt(uint64_t{1} << 62, got); });
  CHECK(beyond.code() == ErrorCode::kCorrupt);
  Error overflow = CaughtError([&] { file->ReadAt(UINT64_MAX - 10, got); });
  CHECK(overflow.code() == ErrorCode::kCorrupt);
}

TEST_CASE("a file truncated after it was opened is reported as truncated, not read as zeros") {
  TempFolder folder;
  std::string path = WritePattern(folder, "shrinks.bin", 8192);
  auto file = OpenPosixFile(path);
  std::filesystem::resize_file(path, 4096);
  std::vector<uint8_t> got(2048);
  file->ReadAt(1024, got);  // still inside
  Error e = CaughtError([&] { file->ReadAt(4000, got); });
  CHECK(e.code() == ErrorCode::kCorrupt);
  CHECK(std::string(e.what()).find("file ends at byte 4096, expected 1952 more") !=
        std::string::npos);
}

TEST_CASE("a mapped range holds exactly the bytes a read gets, at any offset") {
  TempFolder folder;
  const uint64_t size = 3 * 1024 * 1024 + 17;
  auto file = OpenPosixFile(WritePattern(folder, "data.bin", size));
  for (uint64_t offset : {uint64_t{0}, uint64_t{1}, uint64_t{4095}, uint64_t{4096},
                          (uint64_t{1} << 20) + 333, size - 10}) {
    for (size_t length : {size_t{1}, size_t{10}, size_t{8193}}) {
      if (offset + length > size) continue;
      std::unique_ptr<MappedRange> mapped = file->MapAt(offset, length);
      REQUIRE(mapped != nullptr);  // Linux >= 5.14 on a local file system
      REQUIRE(mapped->bytes().size() == length);
      std::vector<uint8_t> read(length);
      file->ReadAt(offset, read);
      CHECK(std::equal(read.begin(), read.end(), mapped->bytes().begin()));
    }
  }
  // Outside the file as it was opened: not mapped, so that ReadAt words the error.
  CHECK(file->MapAt(size - 5, 10) == nullptr);
  CHECK(file->MapAt(uint64_t{1} << 62, 10) == nullptr);
  CHECK(file->MapAt(0, 0) == nullptr);
}

TEST_CASE("a range of a file truncated after it was opened is never mapped, and reads say why") {
  TempFolder folder;
  std::string path = WritePattern(folder, "shrinks.bin", 5 * 4096);
  auto file = OpenPosixFile(path);
  std::filesystem::resize_file(path, 4096);
  std::unique_ptr<MappedRange> inside = file->MapAt(100, 2000);
  REQUIRE(inside != nullptr);
  CHECK(inside->bytes()[0] == Byte(100));
  // The vanished pages: either left to ReadAt, or refused while being made present
  // (MADV_POPULATE_READ's EFAULT, what mincore may not tell) -- never touched, never a SIGBUS.
  std::unique_ptr<MappedRange> beyond;
  bool refused = false;
  try {
    beyond = file->MapAt(4000, 3 * 4096);
  } catch (const Error& error) {
    refused = true;
    CHECK(error.code() == ErrorCode::kCorrupt);
    CHECK(std::string(error.what()).find("file ends at byte 4096") != std::string::npos);
  }
  CHECK((refused || beyond == nullptr));
  std::vector<uint8_t> range(3 * 4096);
  Error e = CaughtError([&] { file->ReadAt(4000, range); });
  CHECK(e.code() == ErrorCode::kCorrupt);
  CHECK(std::string(e.what()).find("file ends at byte 4096") != std::string::npos);
  // The file works on after the failed mapping: reads and mappings inside it still succeed.
  std::vector<uint8_t> got(10);
  file->ReadAt(10, got);
  CHECK(got[0] == Byte(10));
  CHECK(file->MapAt(0, 4096) != nullptr);
}

// Whether any page of `path` is in the page cache (mincore over a mapping of it).
bool AnyPageResident(const std::string& path, size_t size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  void* base = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  REQUIRE(base != MAP_FAILED);
  std::vector<unsigned char> pages((size + 4095) / 4096);
  REQUIRE(::mincore(base, size, pages.data()) == 0);
  ::munmap(base, size);
  return std::any_of(pages.begin(), pages.end(), [](unsigned char p) { return (p & 1) != 0; });
}

TEST_CASE("a range the page cache does not hold is left to ReadAt, which reads it in one go") {
  TempFolder folder;
  const uint64_t size = 64 * 4096;
  const std::string path = WritePattern(folder, "cold.bin", size);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  ::fdatasync(fd);  // written back, so that the kernel may drop the pages
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
  if (AnyPageResident(path, size)) {
    MESSAGE("the page cache kept the file (tmpfs?): nothing to test here");
    return;
  }
  auto file = OpenPosixFile(path);
  CHECK(file->MapAt(4096, 16 * 4096) == nullptr);
  std::vector<uint8_t> got(16 * 4096);
  file->ReadAt(4096, got);  // now in the page cache
  std::unique_ptr<MappedRange> warm = file->MapAt(4096, 16 * 4096);
  REQUIRE(warm != nullptr);
  CHECK(std::equal(got.begin(), got.end(), warm->bytes().begin()));
}

TEST_CASE("opening a missing file, a folder or an unreadable file gives a clear error") {
  TempFolder folder;
  Error missing = CaughtError([&] { OpenPosixFile(folder / "nothing.h5"); });
  CHECK(missing.code() == ErrorCode::kNotFound);
  CHECK(std::string(missing.what()).find(folder / "nothing.h5") != std::string::npos);

  Error directory = CaughtError([&] { OpenPosixFile(folder.path()); });
  CHECK(directory.code() == ErrorCode::kInvalidArgument);
  CHECK(std::string(directory.what()).find("not a regular file") != std::string::npos);

  std::string locked = WritePattern(folder, "locked.bin", 10);
  std::filesystem::permissions(locked, std::filesystem::perms::none);
  bool readable_anyway = ::access(locked.c_str(), R_OK) == 0;  // root reads everything
  if (!readable_anyway) {
    Error denied = CaughtError([&] { OpenPosixFile(locked); });
    CHECK(denied.code() == ErrorCode::kIo);
    CHECK(std::string(denied.what()).find("Permission denied") != std::string::npos);
  }
}

}  // namespace
}  // namespace h5feed::io
