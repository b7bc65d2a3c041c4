#include "io/os_error.h"

#include <doctest/doctest.h>

#include <cerrno>
#include <string>

namespace h5feed::io {
namespace {

TEST_CASE("system errors map to codes: full disk, missing, existing, other") {
  CHECK(SystemError("writing", "/x", ENOSPC).code() == ErrorCode::kNoSpace);
  CHECK(SystemError("writing", "/x", EFBIG).code() == ErrorCode::kNoSpace);
  CHECK(SystemError("writing", "/x", EDQUOT).code() == ErrorCode::kNoSpace);
  CHECK(SystemError("opening", "/x", ENOENT).code() == ErrorCode::kNotFound);
  CHECK(SystemError("linking", "/x", EEXIST).code() == ErrorCode::kAlreadyExists);
  Error denied = SystemError("opening", "/x", EACCES);
  CHECK(denied.code() == ErrorCode::kIo);
  CHECK(std::string(denied.what()) == "opening failed for /x: Permission denied");
}

}  // namespace
}  // namespace h5feed::io
