// OpenFile (open_file.h).
#include "remote/open_file.h"

#include "h5feed/error.h"
#include "remote/http_file.h"
#include "remote/location.h"

namespace h5feed::remote {

std::unique_ptr<io::RandomAccessFile> OpenFile(const std::string& location,
                                               const RemoteOpen& how) {
  switch (SchemeOf(location)) {
    case Scheme::kLocal: return io::OpenPosixFile(location);
    case Scheme::kHttp:
    case Scheme::kHttps:
      return HttpFile::Open(HttpTarget{location, DisplayName(location), {}}, how.options,
                            how.version);
    case Scheme::kS3: break;
  }
  throw Error(ErrorCode::kUnsupported, "s3:// locations are not supported yet: " + location);
}

}  // namespace h5feed::remote
