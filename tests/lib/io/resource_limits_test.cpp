#include "io/resource_limits.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "h5feed/error.h"
#include "support/caught_error.h"

namespace h5feed::io::limits {
namespace {

using testing::CaughtError;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string Refusal(const std::vector<int64_t>& dims) {
  const Error e = CaughtError([&] { CheckImageDimensions(dims, "/images in f.h5"); });
  CHECK(e.code() == ErrorCode::kCorrupt);
  CHECK(Contains(e.what(), "/images in f.h5"));
  return e.what();
}

TEST_CASE("ordinary image shapes pass, up to the limits themselves") {
  CheckImageDimensions({1281167, 224, 224, 3}, "x");
  CheckImageDimensions({0, 32, 32, 3}, "x");            // an empty dataset is not damage
  CheckImageDimensions({4, 1 << 15, 1 << 14, 4}, "x");  // exactly 2 GiB an image
  CheckClassCount(kMaxClasses, "x");
}

TEST_CASE("dimensions that wrap negative, too large, or too many images are refused") {
  // 2^63 + 5 rows read through int64 is negative: what HDF5's hsize_t gives for a damaged
  // dataspace message.
  CHECK(Contains(Refusal({std::numeric_limits<int64_t>::min() + 5, 4, 4, 3}), "2^63 or more"));
  CHECK(Contains(Refusal({10, -1, 4, 3}), "dimension 1 is 2^63 or more"));
  CHECK(Contains(Refusal({10, int64_t{1} << 31, 4, 3}), "image dimension 1 exceeds"));
  CHECK(Contains(Refusal({4, 1 << 15, 1 << 14, 5}), "one image would exceed"));
  // Each factor under 2^31 but their product far beyond int64: no overflow, a refusal.
  CHECK(Contains(Refusal({4, (int64_t{1} << 31) - 1, (int64_t{1} << 31) - 1, 3}),
                 "one image would exceed"));
  const int64_t too_many = static_cast<int64_t>(PhysicalMemoryBytes() / kBytesPerImage) + 1;
  CHECK(Contains(Refusal({too_many, 1, 1, 1}), "bytes per image in memory"));
}

TEST_CASE("class counts over the limit and negative row counts are refused") {
  CHECK(CaughtError([] { CheckClassCount(kMaxClasses + 1, "x"); }).code() == ErrorCode::kCorrupt);
  CHECK(CaughtError([] { CheckRowCount(-1, "x"); }).code() == ErrorCode::kCorrupt);
}

TEST_CASE("a stored chunk may exceed its decoded size only by what codecs add") {
  CHECK(MaxStoredChunkBytes(0) == 64 << 10);
  CHECK(MaxStoredChunkBytes(8 << 20) == (8 << 20) + (1 << 20) + (64 << 10));
  CHECK(PhysicalMemoryBytes() > (uint64_t{64} << 20));
}

}  // namespace
}  // namespace h5feed::io::limits
