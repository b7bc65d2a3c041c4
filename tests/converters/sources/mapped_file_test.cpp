#include "sources/mapped_file.h"

#include <doctest/doctest.h>

#include <vector>

#include "h5feed/error.h"
#include "scratch_dir.h"

namespace h5feed::converters {
namespace {

using testing::ScratchDir;

TEST_CASE("a mapped file shows the file's bytes") {
  ScratchDir dir;
  std::vector<uint8_t> bytes(10000);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 31);
  testing::WriteFile(dir / "data.bin", bytes);
  MappedFile file(dir / "data.bin");
  CHECK(file.size() == bytes.size());
  CHECK(std::vector<uint8_t>(file.bytes().begin(), file.bytes().end()) == bytes);

  MappedFile moved(std::move(file));
  CHECK(moved.size() == bytes.size());
  CHECK(moved.bytes()[9999] == bytes[9999]);
  CHECK(file.bytes().empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
}

TEST_CASE("an empty file maps to an empty span") {
  ScratchDir dir;
  testing::WriteText(dir / "empty.bin", "");
  MappedFile file(dir / "empty.bin");
  CHECK(file.size() == 0);
  CHECK(file.bytes().empty());
}

TEST_CASE("a missing file is not found and a folder is refused") {
  ScratchDir dir;
  CHECK_THROWS_WITH_AS(MappedFile(dir / "absent.bin"), doctest::Contains("absent.bin"), Error);
  try {
    MappedFile file(dir / "absent.bin");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kNotFound);
  }
  CHECK_THROWS_AS(MappedFile(dir.path()), Error);
}

}  // namespace
}  // namespace h5feed::converters
