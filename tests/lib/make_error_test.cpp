#include "make_error.h"

#include <doctest/doctest.h>

#include <string>

#include "byte_size.h"

namespace h5feed {
namespace {

TEST_CASE("MakeError formats its message and keeps its code") {
  const std::string path = "data/train.h5";
  const Error error = MakeError(ErrorCode::kCorrupt, "chunk {} of {} is truncated ({} short)", 7,
                                path, ByteSize(2048));
  CHECK(error.code() == ErrorCode::kCorrupt);
  CHECK(std::string(error.what()) == "chunk 7 of data/train.h5 is truncated (2.0 KiB short)");
}

TEST_CASE("braces doubled in a format string are written once") {
  CHECK(std::string(MakeError(ErrorCode::kInvalidArgument, "{{\"a\": {}}}", 1).what()) ==
        "{\"a\": 1}");
}

}  // namespace
}  // namespace h5feed
