#pragma once
// Opens a location for reading, whatever it names: a local path (io::OpenPosixFile) or a
// remote object (http://, https://, s3://: HttpFile, kept on a local disk when a spill folder
// is set). The chunk source asks which once, at open (source/open_chunk_source.h); the file's
// metadata readers take the plain file either way.

#include <memory>
#include <string>

#include "h5feed/remote_options.h"
#include "io/random_access_file.h"
#include "remote/remote_file.h"

namespace h5feed::remote {

// How a remote location is opened. Ignored for a local path.
struct RemoteOpen {
  RemoteOptions options;
  // The version (RemoteFile::version) an earlier open found: the object must still be that
  // one, else Error(kIo) says it changed. "" for any.
  std::string version;
};

// The remote object `location` names (http://, https://, s3://). Throws as HttpFile::Open
// does; Error(kInternal) for a local path.
std::unique_ptr<RemoteFile> OpenRemoteFile(const std::string& location, const RemoteOpen& how = {});

// A local path or a remote object. Throws as io::OpenPosixFile or OpenRemoteFile do.
std::unique_ptr<io::RandomAccessFile> OpenFile(const std::string& location,
                                               const RemoteOpen& how = {});

}  // namespace h5feed::remote
