// The remote options of inspect, verify, bench and bench sweep (tools/remote_options_flags.h):
// what the flags set, and the flags a sweep hands its runs read back as the options given.
#include "remote_options_flags.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace h5feed::cli {
namespace {

RemoteOptions Parse(std::vector<std::string> flags) {
  CLI::App app("test");
  RemoteOptions options;
  AddRemoteOptions(app, options);
  std::vector<std::string> reversed(flags.rbegin(), flags.rend());  // CLI11 parses from the back
  app.parse(reversed);
  return options;
}

TEST_CASE("the flags set the remote options, and unset ones keep their defaults") {
  const RemoteOptions options =
      Parse({"--connections", "4", "--spill-dir", "/tmp/spill", "--spill-mb", "3"});
  CHECK(options.connections == 4);
  CHECK(options.spill_dir == "/tmp/spill");
  CHECK(options.spill_bytes == int64_t{3} << 20);
  CHECK(options.retries == RemoteOptions{}.retries);
  CHECK(options.s3_endpoint.empty());
}

TEST_CASE("the flags of options read back as those options; defaults give no flag") {
  CHECK(RemoteOptionsArguments(RemoteOptions{}).empty());
  RemoteOptions given;
  given.connections = 3;
  given.retries = 0;
  given.stall_seconds = 7;
  given.spill_dir = "/local/spill";
  given.spill_bytes = int64_t{5} << 30;
  given.s3_region = "eu-central-1";
  given.s3_endpoint = "http://127.0.0.1:9000";
  const RemoteOptions back = Parse(RemoteOptionsArguments(given));
  CHECK(back.connections == 3);
  CHECK(back.retries == 0);
  CHECK(back.stall_seconds == 7);
  CHECK(back.spill_dir == "/local/spill");
  CHECK(back.spill_bytes == given.spill_bytes);
  CHECK(back.s3_region == "eu-central-1");
  CHECK(back.s3_endpoint == "http://127.0.0.1:9000");
}

TEST_CASE("a count of connections out of range is refused") {
  CHECK_THROWS_AS(Parse({"--connections", "0"}), CLI::ValidationError);
}

}  // namespace
}  // namespace h5feed::cli
