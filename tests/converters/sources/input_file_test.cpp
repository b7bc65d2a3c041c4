#include "sources/input_file.h"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <vector>

#include "h5feed/error.h"
#include "scratch_dir.h"
#include "support/caught_error.h"

namespace h5feed::converters {
namespace {

using testing::CodeOf;
using testing::ScratchDir;

std::vector<uint8_t> Pattern(size_t size) {
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 31);
  return bytes;
}

TEST_CASE("an input file reads the file's bytes at any offset") {
  ScratchDir dir;
  const std::vector<uint8_t> bytes = Pattern(10000);
  testing::WriteFile(dir / "data.bin", bytes);
  InputFile file(dir / "data.bin");
  CHECK(file.size() == bytes.size());
  std::vector<uint8_t> middle(100);
  file.ReadAt(4000, middle);
  CHECK(middle == std::vector<uint8_t>(bytes.begin() + 4000, bytes.begin() + 4100));
  CHECK(file.ReadStart(12) == std::vector<uint8_t>(bytes.begin(), bytes.begin() + 12));
  CHECK(file.ReadStart(1 << 20) == bytes);  // no more than the file holds
}

TEST_CASE("an empty input file has nothing to read") {
  ScratchDir dir;
  testing::WriteText(dir / "empty.bin", "");
  InputFile file(dir / "empty.bin");
  CHECK(file.size() == 0);
  CHECK(file.ReadStart(10).empty());
}

TEST_CASE("a missing file is not found, and a folder or a pipe is refused without waiting") {
  ScratchDir dir;
  CHECK(CodeOf([&] { InputFile file(dir / "absent.bin"); }) == ErrorCode::kNotFound);
  CHECK_THROWS_WITH_AS(InputFile(dir / "absent.bin"), doctest::Contains("absent.bin"), Error);
  CHECK(CodeOf([&] { InputFile file(dir.path()); }) == ErrorCode::kInvalidArgument);
  // Opening a pipe for reading waits for a writer: refused before it is opened.
  REQUIRE(::mkfifo((dir / "pipe").c_str(), 0600) == 0);
  CHECK_THROWS_WITH_AS(InputFile(dir / "pipe"), doctest::Contains("not a regular file"), Error);
}

TEST_CASE("a file truncated after it was opened is an error naming it, not a crash") {
  ScratchDir dir;
  testing::WriteFile(dir / "data.bin", Pattern(1 << 20));
  InputFile file(dir / "data.bin");
  std::filesystem::resize_file(dir / "data.bin", 4096);
  std::vector<uint8_t> row(1000);
  file.ReadAt(1000, row);  // still there
  // kIo, not kCorrupt: not a broken sample to skip, but an input changed under the conversion.
  CHECK(CodeOf([&] { file.ReadAt(500000, row); }) == ErrorCode::kIo);
  CHECK_THROWS_WITH_AS(file.ReadAt(500000, row),
                       doctest::Contains("data.bin ends before byte 501000, but it had 1048576 "
                                         "bytes when it was opened"),
                       Error);
}

}  // namespace
}  // namespace h5feed::converters
