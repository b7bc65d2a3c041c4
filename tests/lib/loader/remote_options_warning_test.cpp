#include "loader/remote_options_warning.h"

#include <doctest/doctest.h>

#include <string>

namespace h5feed::loader {
namespace {

TEST_CASE("remote options set for a path that does not use them are named, once") {
  LoaderOptions options;
  CHECK_FALSE(UnusedRemoteOptionsWarning("/data/train.h5", options));
  CHECK_FALSE(UnusedRemoteOptionsWarning("https://example.org/train.h5", options));

  options.remote.spill_dir = "/scratch/spill";
  const auto local = UnusedRemoteOptionsWarning("/data/train.h5", options);
  REQUIRE(local);
  CHECK(*local ==
        "LoaderOptions.remote.spill_dir applies to http(s):// and s3:// locations, and "
        "/data/train.h5 is a local file: ignored");
  CHECK_FALSE(UnusedRemoteOptionsWarning("https://example.org/train.h5", options));

  options.remote.connections = 4;
  options.remote.s3_region = "eu-west-1";
  const auto all = UnusedRemoteOptionsWarning("/data/train.h5", options);
  REQUIRE(all);
  CHECK(all->find("LoaderOptions.remote.connections, LoaderOptions.remote.spill_dir, "
                  "LoaderOptions.remote.s3_region apply to") == 0);

  // An S3 region means nothing to an http(s):// URL, everything to an s3:// one.
  const auto http = UnusedRemoteOptionsWarning("https://example.org/train.h5", options);
  REQUIRE(http);
  CHECK(*http ==
        "LoaderOptions.remote.s3_region applies to s3:// locations, and "
        "https://example.org/train.h5 is an http(s):// URL: ignored");
  CHECK_FALSE(UnusedRemoteOptionsWarning("s3://bucket/train.h5", options));
}

TEST_CASE("the warning names the options as the caller's front end spells them") {
  LoaderOptions options;
  options.remote.spill_bytes = 1 << 30;
  options.option_names = [](std::string_view path) -> std::string {
    return path == "remote.spill_bytes" ? "--spill-mb" : "";
  };
  const auto warning = UnusedRemoteOptionsWarning("train.h5", options);
  REQUIRE(warning);
  CHECK(warning->find("--spill-mb applies to") == 0);
}

}  // namespace
}  // namespace h5feed::loader
