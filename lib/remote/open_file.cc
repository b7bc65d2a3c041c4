// OpenRemoteFile and OpenFile (open_file.h).
#include "remote/open_file.h"

#include <algorithm>

#include "h5feed/error.h"
#include "make_error.h"
#include "remote/http_file.h"
#include "remote/location.h"
#include "remote/s3_location.h"
#include "remote/spilled_file.h"

namespace h5feed::remote {

std::unique_ptr<RemoteFile> OpenRemoteFile(const std::string& location, const RemoteOpen& how) {
  std::unique_ptr<RemoteFile> remote;
  switch (SchemeOf(location)) {
    case Scheme::kLocal:
      throw MakeError(ErrorCode::kInternal, "{} is a local path, not a remote object", location);
    case Scheme::kHttp:
    case Scheme::kHttps:
      remote =
          HttpFile::Open(HttpTarget{location, DisplayName(location), {}}, how.options, how.version);
      break;
    case Scheme::kS3:
      remote = HttpFile::Open(ResolveS3(location, how.options, LoadAwsSettings()), how.options,
                              how.version);
      break;
  }
  if (how.options.spill_dir.empty()) return remote;
  return std::make_unique<SpilledFile>(
      std::move(remote), how.options.spill_dir,
      static_cast<uint64_t>(std::max<int64_t>(0, how.options.spill_bytes)));
}

std::unique_ptr<io::RandomAccessFile> OpenFile(const std::string& location, const RemoteOpen& how) {
  if (SchemeOf(location) == Scheme::kLocal) return io::OpenPosixFile(location);
  return OpenRemoteFile(location, how);
}

}  // namespace h5feed::remote
