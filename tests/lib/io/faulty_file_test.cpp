#include "support/faulty_file.h"

#include <doctest/doctest.h>

#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "h5feed/error.h"
#include "support/caught_error.h"
#include "support/temp_folder.h"

namespace h5feed::testing {
namespace {

std::string WriteCounting(const TempFolder& folder, uint64_t size) {
  std::string path = folder / "data.bin";
  std::ofstream out(path, std::ios::binary);
  for (uint64_t i = 0; i < size; ++i) out.put(static_cast<char>(i % 251));
  REQUIRE(out.good());
  return path;
}

using testing::CaughtError;

TEST_CASE("a faulty file without faults reads like the file it wraps") {
  TempFolder folder;
  FaultyFile file(io::OpenPosixFile(WriteCounting(folder, 1000)));
  std::vector<uint8_t> got(100);
  file.ReadAt(300, got);
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == (300 + i) % 251);
  CHECK(file.size() == 1000);
  CHECK(file.reads() == 1);
  CHECK(file.bytes_read() == 100);
}

TEST_CASE("a faulty file fails the n-th read with EIO and the others succeed") {
  TempFolder folder;
  FaultyFile file(io::OpenPosixFile(WriteCounting(folder, 1000)));
  file.FailNthRead(2);
  std::vector<uint8_t> got(10);
  file.ReadAt(0, got);
  file.ReadAt(10, got);
  Error e = CaughtError([&] { file.ReadAt(20, got); });
  CHECK(e.code() == ErrorCode::kIo);
  CHECK(std::string(e.what()).find("Input/output error") != std::string::npos);
  CHECK(std::string(e.what()).find("at offset 20") != std::string::npos);
  file.ReadAt(30, got);
}

TEST_CASE("a faulty file fails every read touching a byte range and no other") {
  TempFolder folder;
  FaultyFile file(io::OpenPosixFile(WriteCounting(folder, 1000)));
  file.FailReadsTouching(500, 510, ENOSPC);
  std::vector<uint8_t> got(10);
  file.ReadAt(490, got);  // ends at 500
  file.ReadAt(510, got);  // starts at 510
  CHECK(CaughtError([&] { file.ReadAt(495, got); }).code() == ErrorCode::kIo);
  CHECK(CaughtError([&] { file.ReadAt(509, got); }).code() == ErrorCode::kIo);
}

TEST_CASE("a faulty file can pretend to end early and to return flipped bytes") {
  TempFolder folder;
  FaultyFile file(io::OpenPosixFile(WriteCounting(folder, 1000)));
  file.EndAt(600);
  file.FlipBytes(100, 102, 0x0F);
  std::vector<uint8_t> got(10);
  Error e = CaughtError([&] { file.ReadAt(595, got); });
  CHECK(e.code() == ErrorCode::kCorrupt);
  CHECK(std::string(e.what()).find("file ends at byte 600, expected 5 more") != std::string::npos);
  file.ReadAt(99, got);
  CHECK(got[0] == 99);
  CHECK(got[1] == (100 ^ 0x0F));
  CHECK(got[2] == (101 ^ 0x0F));
  CHECK(got[3] == 102);
}

}  // namespace
}  // namespace h5feed::testing
