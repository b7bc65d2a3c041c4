#include "remote_options_flags.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "number_checks.h"

namespace h5feed::cli {

std::string RemoteOptionFlag(std::string_view field) {
  static constexpr std::pair<std::string_view, std::string_view> kFlags[] = {
      {"connections", "--connections"},
      {"retries", "--retries"},
      {"stall_seconds", "--request-stall-seconds"},
      {"spill_dir", "--spill-dir"},
      {"spill_bytes", "--spill-mb"},
      {"s3_region", "--s3-region"},
      {"s3_endpoint", "--s3-endpoint"},
  };
  for (const auto& [name, flag] : kFlags) {
    if (field == name) return std::string(flag);
  }
  return "";
}

void AddRemoteOptions(CLI::App& command, RemoteOptions& options) {
  const char* group = "Remote files (http://, https://, s3://; docs/remote.md)";
  options.option_names = RemoteOptionFlag;
  command
      .add_option("--connections", options.connections,
                  "Connections to the server, each carrying one range request at a time")
      ->check(WholeInRange(1, 1024))
      ->capture_default_str()
      ->group(group);
  command
      .add_option("--retries", options.retries,
                  "Attempts after the first for a request that failed in a way that may "
                  "pass (reset, stall, short body, 5xx, 429)")
      ->check(WholeInRange(0, 100))
      ->capture_default_str()
      ->group(group);
  command
      .add_option("--request-stall-seconds", options.stall_seconds,
                  "A request that receives nothing for this long is abandoned and retried")
      ->check(WholeInRange(1, 86400))
      ->capture_default_str()
      ->group(group);
  command
      .add_option("--spill-dir", options.spill_dir,
                  "Keep the bytes read in this folder on a local disk, so later epochs and "
                  "runs read them there (checked on the way back in; shareable by the "
                  "node's processes)")
      ->group(group);
  command
      .add_option_function<int64_t>(
          "--spill-mb", [&options](int64_t mib) { options.spill_bytes = mib << 20; },
          "The most the spill folder holds, in MiB (default 65536)")
      ->check(WholeInRange(int64_t{0}, int64_t{1} << 40))
      ->group(group);
  command
      .add_option("--s3-region", options.s3_region,
                  "For s3://: the region (default: AWS_REGION, ~/.aws/config, us-east-1)")
      ->group(group);
  command
      .add_option("--s3-endpoint", options.s3_endpoint,
                  "For s3://: an S3-compatible store's URL, addressed path-style (default: "
                  "AWS_ENDPOINT_URL, ~/.aws/config, else AWS)")
      ->group(group);
}

std::vector<std::string> RemoteOptionsArguments(const RemoteOptions& options) {
  const RemoteOptions defaults;
  std::vector<std::string> argv;
  auto add = [&argv](const char* flag, const std::string& value) {
    argv.insert(argv.end(), {flag, value});
  };
  if (options.connections != defaults.connections) {
    add("--connections", std::to_string(options.connections));
  }
  if (options.retries != defaults.retries) add("--retries", std::to_string(options.retries));
  if (options.stall_seconds != defaults.stall_seconds) {
    add("--request-stall-seconds", std::to_string(options.stall_seconds));
  }
  if (!options.spill_dir.empty()) add("--spill-dir", options.spill_dir);
  if (options.spill_bytes != defaults.spill_bytes) {
    add("--spill-mb", std::to_string(options.spill_bytes >> 20));
  }
  if (!options.s3_region.empty()) add("--s3-region", options.s3_region);
  if (!options.s3_endpoint.empty()) add("--s3-endpoint", options.s3_endpoint);
  return argv;
}

}  // namespace h5feed::cli
