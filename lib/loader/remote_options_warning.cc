// UnusedRemoteOptionsWarning (remote_options_warning.h).

#include "loader/remote_options_warning.h"

#include <string_view>
#include <vector>

#include "h5feed/location.h"
#include "loader/options_check.h"

namespace h5feed::loader {

std::optional<std::string> UnusedRemoteOptionsWarning(const std::string& path,
                                                      const LoaderOptions& options) {
  const RemoteOptions& given = options.remote;
  const RemoteOptions defaults;
  const Location location(path);
  const bool remote = location.remote();
  const bool s3 = location.scheme() == Location::Scheme::kS3;
  std::vector<std::string_view> unused;
  const auto check = [&](bool set, bool applies, std::string_view field) {
    if (set && !applies) unused.push_back(field);
  };
  check(given.connections != defaults.connections, remote, "remote.connections");
  check(given.retries != defaults.retries, remote, "remote.retries");
  check(given.connect_timeout_seconds != defaults.connect_timeout_seconds, remote,
        "remote.connect_timeout_seconds");
  check(given.stall_seconds != defaults.stall_seconds, remote, "remote.stall_seconds");
  check(given.spill_dir != defaults.spill_dir, remote, "remote.spill_dir");
  check(given.spill_bytes != defaults.spill_bytes, remote, "remote.spill_bytes");
  check(given.s3_region != defaults.s3_region, s3, "remote.s3_region");
  check(given.s3_endpoint != defaults.s3_endpoint, s3, "remote.s3_endpoint");
  if (unused.empty()) return std::nullopt;
  std::string names;
  for (std::string_view field : unused) {
    names += (names.empty() ? "" : ", ") + OptionName(options, field);
  }
  const std::string applies_to = remote ? "s3:// locations" : "http(s):// and s3:// locations";
  return names + (unused.size() == 1 ? " applies" : " apply") + " to " + applies_to + ", and " +
         location.display() + " is " + (remote ? "an http(s):// URL" : "a local file") +
         ": ignored";
}

}  // namespace h5feed::loader
