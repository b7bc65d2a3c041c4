#include "byte_size.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>

namespace h5feed {
namespace {

TEST_CASE("a size under 1 KiB is written in bytes, without a decimal") {
  CHECK(ToString(ByteSize(0)) == "0 B");
  CHECK(ToString(ByteSize(1023)) == "1023 B");
}

TEST_CASE("a larger size takes the largest unit it reaches, with one decimal rounded up") {
  CHECK(ToString(ByteSize(1024)) == "1.0 KiB");
  CHECK(ToString(ByteSize(1025)) == "1.1 KiB");
  CHECK(ToString(ByteSize(20800)) == "20.4 KiB");  // 20.31: enough, set as written
  CHECK(ToString(ByteSize(99723264)) == "95.2 MiB");
  CHECK(ToString(ByteSize(int64_t{4} << 20)) == "4.0 MiB");
  CHECK(ToString(ByteSize(uint64_t{3} << 30)) == "3.0 GiB");
  CHECK(ToString(ByteSize((int64_t{1} << 40) + 1)) == "1.1 TiB");
}

TEST_CASE("a size that rounds up to 1024 of a unit is written in the next one") {
  CHECK(ToString(ByteSize((int64_t{1} << 20) - 1)) == "1.0 MiB");
  CHECK(ToString(ByteSize(int64_t{1023} * 1024 + 1000)) == "1.0 MiB");
}

TEST_CASE("the extremes of int64_t are written without overflow") {
  CHECK(ToString(ByteSize(std::numeric_limits<int64_t>::max())) == "8.0 EiB");
  CHECK(ToString(ByteSize(std::numeric_limits<int64_t>::min())) == "-8.0 EiB");
  CHECK(ToString(ByteSize(-1536)) == "-1.5 KiB");
}

TEST_CASE("fmt writes a ByteSize as ToString does, honouring width and alignment") {
  CHECK(fmt::format("needs {}", ByteSize(99723264)) == "needs 95.2 MiB");
  CHECK(fmt::format("[{:>9}]", ByteSize(1024)) == "[  1.0 KiB]");
}

}  // namespace
}  // namespace h5feed
