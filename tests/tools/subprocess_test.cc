#include "bench/subprocess.h"

#include <doctest/doctest.h>

#include "h5feed/error.h"

namespace h5feed::bench {
namespace {

TEST_CASE("stdout, stderr and the exit code come back separately") {
  const ProcessResult r =
      RunProcess({"/bin/sh", "-c", "echo out; echo err >&2; echo \"v=$H5FEED_TEST_VAR\"; exit 3"},
                 {"H5FEED_TEST_VAR=seven"});
  CHECK(r.exit_code == 3);
  CHECK(r.out == "out\nv=seven\n");
  CHECK(r.err == "err\n");
  CHECK(LastLine(r.out) == "v=seven");
}

TEST_CASE("a child killed by a signal reports 128 + the signal") {
  CHECK(RunProcess({"/bin/sh", "-c", "kill -TERM $$"}).exit_code == 128 + 15);
}

TEST_CASE("large outputs on both streams do not deadlock") {
  const ProcessResult r =
      RunProcess({"/bin/sh", "-c", "head -c 300000 /dev/zero; head -c 300000 /dev/zero >&2"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.size() == 300000);
  CHECK(r.err.size() == 300000);
}

TEST_CASE("a program that does not exist is a NotFound error naming it; FindProgram finds sh") {
  CHECK_THROWS_WITH_AS(RunProcess({"no-such-program-h5feed"}),
                       doctest::Contains("no-such-program-h5feed"), Error);
  CHECK(FindProgram("sh").find("/sh") != std::string::npos);
  CHECK(FindProgram("no-such-program-h5feed").empty());
  CHECK(FindProgram("/bin/sh") == "/bin/sh");
  CHECK(LastLine("a\nb\n\n") == "b");
  CHECK(LastLine("") == "");
}

}  // namespace
}  // namespace h5feed::bench
