// CheckRemoteOptions (remote_options_check.h).

#include "remote_options_check.h"

#include <cstdint>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed {

void CheckRemoteOptions(const RemoteOptions& options,
                        const std::function<std::string(std::string_view field)>& name) {
  const auto require = [&name](bool holds, const char* field, int64_t value, const char* rule) {
    if (!holds) {
      throw MakeError(ErrorCode::kInvalidArgument, "{} is {}; it must be {}", name(field), value,
                      rule);
    }
  };
  require(options.connections >= 1 && options.connections <= 1024, "connections",
          options.connections, "in [1, 1024]");
  require(options.retries >= 0 && options.retries <= 100, "retries", options.retries,
          "in [0, 100]");
  require(options.connect_timeout_seconds >= 1, "connect_timeout_seconds",
          options.connect_timeout_seconds, ">= 1");
  require(options.stall_seconds >= 1, "stall_seconds", options.stall_seconds, ">= 1");
  require(options.spill_bytes >= 0, "spill_bytes", options.spill_bytes, ">= 0 (0 = keep nothing)");
}

}  // namespace h5feed
