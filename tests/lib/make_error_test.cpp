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

TEST_CASE("a missing input is kNotFound marked so, and keeps the mark when reworded") {
  const Error missing = Error::MissingInput("data/train.h5 does not exist");
  CHECK(missing.code() == ErrorCode::kNotFound);
  CHECK(missing.missing_input());
  const Error placed = missing.Reworded("chunk 3: data/train.h5 does not exist");
  CHECK(placed.missing_input());
  CHECK(placed.code() == ErrorCode::kNotFound);
  CHECK(std::string(placed.what()) == "chunk 3: data/train.h5 does not exist");
  // Inside a file that is there: kNotFound, not a missing input.
  CHECK_FALSE(MakeError(ErrorCode::kNotFound, "no dataset {} in {}", "x", "a.h5").missing_input());
  CHECK_FALSE(MakeError(ErrorCode::kCorrupt, "x").Reworded("y").missing_input());
}

TEST_CASE("braces doubled in a format string are written once") {
  CHECK(std::string(MakeError(ErrorCode::kInvalidArgument, "{{\"a\": {}}}", 1).what()) ==
        "{\"a\": 1}");
}

}  // namespace
}  // namespace h5feed
