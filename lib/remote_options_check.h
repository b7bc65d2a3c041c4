#pragma once
// The ranges of RemoteOptions' fields (h5feed/remote_options.h), checked before anything is
// read, by every entry that takes them from a caller (the Loader's options check, InspectFile;
// the command's flags check the same ranges as they parse).

#include <functional>
#include <string>
#include <string_view>

#include "h5feed/remote_options.h"

namespace h5feed {

// Throws Error(kInvalidArgument) for the first field out of range, named as `name` gives the
// field ("retries" -> "LoaderOptions.remote.retries", or a front end's own spelling):
// "LoaderOptions.remote.connections is 0; it must be in [1, 1024]".
void CheckRemoteOptions(const RemoteOptions& options,
                        const std::function<std::string(std::string_view field)>& name);

}  // namespace h5feed
