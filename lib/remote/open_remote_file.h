#pragma once
// Opens a remote object (http://, https://, s3://: HttpFile, kept on a local disk when a spill
// folder is set) for reading. Two readers open remote objects: the chunk source reads chunks
// (source/remote_chunk_source.h), HDF5 reads metadata (hdf5/range_driver.h); lib/modules.txt
// keeps this header to them (`only`).

#include <memory>

#include "h5feed/location.h"
#include "remote/remote_file.h"

namespace h5feed::remote {

// The remote object `location` names, opened with its remote options, at its version when it
// has one (location.version(): the object must still be that one, else Error(kIo) says it
// changed). Throws as HttpFile::Open does; Error(kInternal) for a local path.
std::unique_ptr<RemoteFile> OpenRemoteFile(const Location& location);

}  // namespace h5feed::remote
