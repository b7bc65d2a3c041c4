#pragma once
// Opens a file a person named, for every reader of one (the index, inspect, rechunk): first
// what the file system and the first bytes say (it exists, is a regular file, starts with
// HDF5's signature), then the read-only open with the caller's locking policy
// (read_only_open.h). So a missing file, a folder, an empty file and a text file get the same
// clear error from every command. A remote location (http://, https://, s3://) is opened
// through remote::OpenRemoteFile and read by HDF5 through the range driver (range_driver.h), after
// the same checks of its size and first bytes; locking does not apply to it.
// Call under hdf5::Lock() with errors silenced.

#include <string>

#include "h5feed/file_locking.h"
#include "h5feed/location.h"
#include "hdf5/read_only_open.h"

namespace h5feed::hdf5 {

// Throws Error: kNotFound "PATH does not exist"; kInvalidArgument when `path` is not a regular
// file; kCorrupt "PATH is empty, not an HDF5 file" or "PATH is not an HDF5 file (it does not
// start with an HDF5 signature)"; kIo when its start cannot be read; then what
// OpenReadOnlyFile throws. For a remote location, what remote::OpenRemoteFile and the reads of its
// metadata throw (kNotFound for 404, kIo for 403, a changed object or a network that keeps
// failing), and kCorrupt when HDF5 cannot read what it holds.
ReadOnlyFile OpenHdf5File(const Location& location, FileLocking locking);

// OpenHdf5File's checks before HDF5 opens anything (it exists, is a regular file, is not empty,
// starts with HDF5's signature), thrown as OpenHdf5File throws them: for a caller that tells a
// file that is not HDF5 at all from a damaged one (verify reports the damage, and refuses the
// rest as the other commands do).
void CheckHdf5Start(const Location& location);

}  // namespace h5feed::hdf5
