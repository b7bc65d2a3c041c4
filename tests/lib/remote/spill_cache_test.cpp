#include "remote/spill_cache.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "h5feed/error.h"
#include "support/caught_error.h"
#include "support/temp_folder.h"

namespace h5feed::remote {
namespace {

namespace fs = std::filesystem;
using testing::TempFolder;

std::vector<uint8_t> Bytes(size_t size, uint8_t salt) {
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>(i * 7 + salt);
  return bytes;
}

uint64_t FolderBytes(const std::string& dir) {
  uint64_t total = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().filename() != ".lock") total += entry.file_size();
  }
  return total;
}

TEST_CASE("kept bytes read back whole; a range never kept is absent") {
  TempFolder folder;
  SpillCache spill(folder / "spill", 1 << 20, "https://host/train.h5", "ETag \"v1\"");
  const std::vector<uint8_t> bytes = Bytes(5000, 1);
  spill.Write(12345, bytes);
  CHECK(spill.Contains(12345, 5000));
  std::vector<uint8_t> got(5000);
  CHECK(spill.Read(12345, got));
  CHECK(got == bytes);
  CHECK_FALSE(spill.Contains(12345, 4999));
  CHECK_FALSE(spill.Read(0, got));
  const SpillStats stats = spill.stats();
  CHECK(stats.hits == 1);
  CHECK(stats.misses == 1);
  CHECK(stats.written == 1);
  // What the folder is, for people.
  std::ifstream source(spill.folder() + "/SOURCE");
  std::string line;
  std::getline(source, line);
  CHECK(line == "https://host/train.h5");
}

TEST_CASE("an entry damaged on the disk or torn by a crash reads as absent and is removed") {
  TempFolder folder;
  SpillCache spill(folder / "spill", 1 << 20, "https://host/train.h5", "ETag \"v1\"");
  const std::vector<uint8_t> bytes = Bytes(5000, 2);
  for (uint64_t offset : {uint64_t{0}, uint64_t{10000}}) spill.Write(offset, bytes);
  {  // a flipped byte of the data
    std::fstream entry(spill.folder() + "/0-5000", std::ios::in | std::ios::out | std::ios::binary);
    entry.seekp(40 + 2500);
    entry.put('\x55');
  }
  fs::resize_file(spill.folder() + "/10000-5000", 40 + 1000);  // torn: the rest never written
  std::vector<uint8_t> got(5000);
  CHECK_FALSE(spill.Read(0, got));
  CHECK_FALSE(spill.Read(10000, got));
  CHECK_FALSE(fs::exists(spill.folder() + "/0-5000"));
  CHECK_FALSE(fs::exists(spill.folder() + "/10000-5000"));
  CHECK(spill.stats().damaged == 2);
  spill.Write(0, bytes);  // kept again from the source
  CHECK(spill.Read(0, got));
  CHECK(got == bytes);
}

TEST_CASE("another version of an object keeps its bytes apart from the old one's") {
  TempFolder folder;
  SpillCache old_version(folder / "spill", 1 << 20, "https://host/train.h5", "ETag \"v1\"");
  SpillCache new_version(folder / "spill", 1 << 20, "https://host/train.h5", "ETag \"v2\"");
  old_version.Write(0, Bytes(100, 3));
  CHECK(new_version.folder() != old_version.folder());
  std::vector<uint8_t> got(100);
  CHECK_FALSE(new_version.Read(0, got));
}

TEST_CASE("a full folder gives up other objects' bytes, least recently read first, never its own") {
  TempFolder folder;
  const std::string dir = folder / "spill";
  const uint64_t entry = 40 + 1000;
  // Room for 4 entries (and the small SOURCE notes).
  const uint64_t budget = 4 * entry + 200;
  SpillCache first(dir, budget, "https://host/a.h5", "ETag \"a\"");
  for (uint64_t i = 0; i < 3; ++i) first.Write(i * 1000, Bytes(1000, 4));
  std::vector<uint8_t> got(1000);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(first.Read(0, got));  // read last: kept longest
  SpillCache second(dir, budget, "https://host/b.h5", "ETag \"b\"");
  for (uint64_t i = 0; i < 3; ++i) second.Write(i * 1000, Bytes(1000, 5));
  CHECK(second.stats().written == 3);
  CHECK(first.Contains(0, 1000));  // first's most recently read entry stayed
  CHECK_FALSE(first.Contains(1000, 1000));
  CHECK_FALSE(first.Contains(2000, 1000));
  // The folder is full of second's own and first's last: second keeps no more.
  second.Write(3000, Bytes(1000, 5));
  second.Write(4000, Bytes(1000, 5));
  CHECK(second.stats().not_written >= 1);
  CHECK(FolderBytes(dir) <= budget);
}

TEST_CASE("caches sharing a folder, each as another process would, keep it near its budget") {
  TempFolder folder;
  const std::string dir = folder / "spill";
  const uint64_t budget = 400000;
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w) {
    writers.emplace_back([&, w] {
      SpillCache spill(dir, budget, "https://host/" + std::to_string(w) + ".h5", "ETag");
      for (uint64_t i = 0; i < 200; ++i)
        spill.Write(i * 3000, Bytes(3000, static_cast<uint8_t>(w)));
    });
  }
  for (std::thread& writer : writers) writer.join();
  CHECK(FolderBytes(dir) <= budget + 4 * budget / 32);
  // Nothing half-written is left, and what is there reads back whole.
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    CHECK(entry.path().filename().string().rfind(".tmp-", 0) != 0);
  }
}

TEST_CASE("a folder that cannot be created is an error naming it") {
  TempFolder folder;
  std::ofstream(folder / "file") << "x";
  const Error error = testing::CaughtError(
      [&] { SpillCache(folder / "file/spill", 1000, "https://host/a.h5", "v"); });
  CHECK(error.code() == ErrorCode::kIo);
  CHECK(std::string(error.what()).find(folder / "file/spill") != std::string::npos);
}

}  // namespace
}  // namespace h5feed::remote
