#pragma once
// Opens a location for reading, whatever it names: a local path (io::OpenPosixFile) or a
// remote object (http://, https://, s3://: HttpFile). The one place that tells them apart.

#include <memory>
#include <string>

#include "h5feed/remote_options.h"
#include "io/random_access_file.h"

namespace h5feed::remote {

// How a remote location is opened. Ignored for a local path.
struct RemoteOpen {
  RemoteOptions options;
  // The version (RandomAccessFile::version) an earlier open found: the object must still be
  // that one, else Error(kIo) says it changed. "" for any.
  std::string version;
};

// Throws as io::OpenPosixFile or HttpFile::Open do.
std::unique_ptr<io::RandomAccessFile> OpenFile(const std::string& location,
                                               const RemoteOpen& how = {});

}  // namespace h5feed::remote
