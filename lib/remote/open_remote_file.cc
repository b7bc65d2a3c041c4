// OpenRemoteFile (open_remote_file.h).
#include "remote/open_remote_file.h"

#include <algorithm>

#include "h5feed/error.h"
#include "make_error.h"
#include "remote/http_file.h"
#include "remote/s3_location.h"
#include "remote/spilled_file.h"

namespace h5feed::remote {

std::unique_ptr<RemoteFile> OpenRemoteFile(const Location& location) {
  const RemoteOptions& options = location.remote_options();
  std::unique_ptr<RemoteFile> remote;
  switch (location.scheme()) {
    case Location::Scheme::kLocal:
      throw MakeError(ErrorCode::kInternal, "{} is a local path, not a remote object",
                      location.display());
    case Location::Scheme::kHttp:
    case Location::Scheme::kHttps:
      remote = HttpFile::Open(HttpTarget{location.text(), location.display(), {}}, options,
                              location.version());
      break;
    case Location::Scheme::kS3:
      remote = HttpFile::Open(ResolveS3(location.text(), options, LoadAwsSettings()), options,
                              location.version());
      break;
  }
  if (options.spill_dir.empty()) return remote;
  return std::make_unique<SpilledFile>(
      std::move(remote), options.spill_dir,
      static_cast<uint64_t>(std::max<int64_t>(0, options.spill_bytes)),
      NameOption(options.option_names, "RemoteOptions", "spill_dir"));
}

}  // namespace h5feed::remote
