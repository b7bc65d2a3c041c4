// probe/probe_location.h: the build tree's probe program is found from a binary of the build
// tree (this test, three folders below it), and $H5FEED_OPEN_PROBE overrides the search.

#include "probe/probe_location.h"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

namespace h5feed::probe {
namespace {

// Sets an environment variable for one test case, and restores it.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const char* value) : name_(name) {
    if (const char* old = getenv(name)) old_ = old, had_ = true;
    if (value) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedVariable() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST_CASE("the build tree's probe program is found from a binary of the build tree") {
  ScopedVariable unset("H5FEED_OPEN_PROBE", nullptr);
  const ProbeLocation location = FindOpenProbe();
  REQUIRE_FALSE(location.path.empty());
  CHECK(std::filesystem::equivalent(location.path, H5FEED_BUILT_PROBE));
}

TEST_CASE("$H5FEED_OPEN_PROBE names the program, and only it is tried") {
  {
    ScopedVariable named("H5FEED_OPEN_PROBE", "/bin/true");
    CHECK(FindOpenProbe().path == "/bin/true");
  }
  ScopedVariable missing("H5FEED_OPEN_PROBE", "/nonexistent/h5feed-open-probe");
  const ProbeLocation location = FindOpenProbe();
  CHECK(location.path.empty());
  CHECK(location.looked.find("H5FEED_OPEN_PROBE = /nonexistent/h5feed-open-probe") !=
        std::string::npos);
}

}  // namespace
}  // namespace h5feed::probe
